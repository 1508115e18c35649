"""Where a document declares its namespaces: on its root only, or also further down.

When every declaration stands on the root, every element's in-scope namespaces are the root's, so a
reader can resolve a prefixed name once per distinct text instead of asking lxml for each element's
``nsmap`` (a walk up its ancestors that builds a fresh dict: a visible cost per context, per member and
per schema element, issue 21).
"""
from __future__ import annotations

from lxml import etree

from auditflow.xbrl.qname import QName


def root_only_namespaces(root: etree._Element, source: bytes | None) -> dict | None:
    """``root.nsmap`` when ``source`` (the bytes ``root`` was parsed from) declares namespaces on the
    root only, else None. Every declaration is spelled ``xmlns`` in the bytes (entity declarations are
    refused by the parser): as many occurrences as the root declares means no other element declares
    any. UTF-16/32 bytes never match, and the caller falls back to each element's ``nsmap``."""
    if source is None:
        return None
    nsmap = root.nsmap
    if not nsmap or source.count(b"xmlns") != len(nsmap):
        return None
    return nsmap


class RootNames:
    """Prefixed names of one document resolved to QNames: once per distinct text when ``nsmap`` (from
    :func:`root_only_namespaces`) is given, else against each element's own ``nsmap``, as before. The
    result is the same either way."""

    def __init__(self, nsmap: dict | None) -> None:
        self._nsmap = nsmap
        self._known: dict[str, QName] = {}

    def nsmap(self, el: etree._Element) -> dict:
        """The namespaces in scope at ``el``: the root's when they are every element's."""
        return self._nsmap if self._nsmap is not None else el.nsmap

    def qname(self, text: str, nsmap: dict) -> QName:
        """``QName.parse(text, nsmap)``, where ``nsmap`` is :meth:`nsmap` of the element holding ``text``."""
        if self._nsmap is None:
            return QName.parse(text, nsmap)
        q = self._known.get(text)
        if q is None:  # an undeclared prefix raises here, every time
            q = self._known[text] = QName.parse(text, nsmap)
        return q
