"""Where a document declares its namespaces: on its root only, or also further down.

When every declaration stands on the root, every element's in-scope namespaces are the root's, so a
reader can resolve a prefixed name once per distinct text instead of asking lxml for each element's
``nsmap`` (a walk up its ancestors that builds a fresh dict: a visible cost per context, per member and
per schema element, issue 21).
"""
from __future__ import annotations

from lxml import etree


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
