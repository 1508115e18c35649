"""Parse XML without trusting it.

Filings come from strangers. The parser never resolves external entities, never touches the
network, refuses DTDs that declare entities (the billion-laughs family) and tolerates the stray
bytes some filing tools leave before the XML declaration.
"""
from __future__ import annotations

import re

from lxml import etree

from auditflow.errors import MalformedXBRLError, UnsafeInputError

_PARSER_OPTS = dict(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    dtd_validation=False,
    huge_tree=False,
    remove_comments=True,
    remove_pis=True,
)

_ENTITY_DECL = re.compile(rb"<!ENTITY", re.IGNORECASE)
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)


def _strip_leading_junk(data: bytes) -> bytes:
    """Drop anything before the first '<' (a BOM, whitespace or a stray byte seen in real filings)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    i = data.find(b"<")
    if i > 0:
        data = data[i:]
    return data


def parse_xml(data: bytes, *, name: str) -> etree._Element:
    """Parse bytes into an element tree root.

    :raises UnsafeInputError: on entity declarations (external or expanding).
    :raises MalformedXBRLError: on XML that does not parse, with file and line.
    """
    data = _strip_leading_junk(data)
    head = data[:65536]
    if _DOCTYPE.search(head) and _ENTITY_DECL.search(data):
        raise UnsafeInputError(
            "the document declares XML entities in a DOCTYPE; XBRL never needs them and they are the "
            "vector of external-entity and entity-expansion attacks, so the file is refused",
            path=name,
        )
    parser = etree.XMLParser(**_PARSER_OPTS)
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if getattr(exc, "lineno", None) else None
        raise MalformedXBRLError(f"not well-formed XML: {exc.msg}", path=name, line=line) from None
    if root is None:
        raise MalformedXBRLError("empty document", path=name)
    return root
