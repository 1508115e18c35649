"""Repair inline documents that use namespace prefixes they never declare.

Some tools re-serialise inline filings and drop the namespace declarations of prefixes that appear
only inside attribute values (``name="dei:DocumentType"``, ``format="ixt:num-dot-decimal"``); a real
IBM 10-K in our data is one. The prefixes are recoverable from the filing's own extension schema
(its declarations and the file names of its imports) and from the well-known registries, so we add
the missing declarations, re-parse, and record a warning that lists them.

A prefix counts as used where Inline XBRL reads a QName: the ``name``, ``format`` and ``unitRef``
of inline elements, the ``dimension`` of a member, the text of a measure or an explicit member.
"""
from __future__ import annotations

import re

from lxml import etree

from auditflow.xbrl.model import Warning_
from auditflow.xbrl.safexml import parse_xml

_SCHEMA_REF = re.compile(rb'schemaRef[^>]*?href="([^"]+)"')
_IMPORT_STEM = re.compile(r"/([a-z][a-z-]*?)-\d{4}(?:-\d\d-\d\d)?\.xsd$")
WELL_KNOWN = {
    "iso4217": "http://www.xbrl.org/2003/iso4217",
    "ixt": "http://www.xbrl.org/inlineXBRL/transformation/2020-02-12",
    "ixt-sec": "http://www.sec.gov/inlineXBRL/transformation/2015-08-31",
    "xbrldi": "http://xbrl.org/2006/xbrldi",
    "xbrli": "http://www.xbrl.org/2003/instance",
    "link": "http://www.xbrl.org/2003/linkbase",
    "xlink": "http://www.w3.org/1999/xlink",
    "xsi": "http://www.w3.org/2001/XMLSchema-instance",
}


_IX = "{http://www.xbrl.org/2013/inlineXBRL}"
_PREFIX = re.compile(r"[A-Za-z_][\w.-]*", re.ASCII)
_LEADING_SPACE = " \t\n\r\f\v"


def used_prefixes(root: etree._Element) -> set[str]:
    """The prefixes of the QNames an inline document's facts, contexts and units are read with.

    Read from the parsed tree, in three C walks (one per kind of element, so no element's tag is
    read), which yield 2,400 of aeon's 21,000 elements. Two regular expressions over the bytes
    (``name="p:``, ``<x:measure>p:``) ran 79M instructions on aeon's 2.4 MB (issue 21), and also
    counted prefixed ``name`` attributes of HTML elements (``<meta name="og:title">``) and markup
    inside comments as uses."""
    found: set[str] = set()
    texts: list[str | None] = []
    for el in root.iter(_IX + "*"):
        get = el.get
        texts += (get("name"), get("format"), get("unitRef"))
    texts += [el.get("dimension") for el in root.iter("{*}explicitMember", "{*}typedMember")]
    texts += [(el.text or "").lstrip(_LEADING_SPACE) for el in root.iter("{*}explicitMember", "{*}measure")]
    for text in texts:
        if text and ":" in text:
            found.add(text.partition(":")[0])
    return {p for p in found if _PREFIX.fullmatch(p)}


def undeclared_prefixes(root: etree._Element) -> set[str]:
    """:func:`used_prefixes` that neither the root nor an ``ix:header`` declares."""
    declared = {p for p in root.nsmap if p}
    for el in root.iter(_IX + "header"):
        declared |= {p for p in el.nsmap if p}
    return used_prefixes(root) - declared


def schema_ref(data: bytes) -> str | None:
    m = _SCHEMA_REF.search(data)
    return m.group(1).decode() if m else None


def prefixes_from_schema(schema_root: etree._Element) -> dict[str, str]:
    """Prefixes the extension schema declares, plus one per import named by its file (dei-2024.xsd -> dei)."""
    out = {p: ns for p, ns in schema_root.nsmap.items() if p}
    for imp in schema_root.iter("{http://www.w3.org/2001/XMLSchema}import"):
        m = _IMPORT_STEM.search(imp.get("schemaLocation", ""))
        if m and imp.get("namespace"):
            out.setdefault(m.group(1), imp.get("namespace"))
    return out


def declarations(missing: set[str], known: dict[str, str], *, name: str) -> tuple[dict[str, str], Warning_]:
    """The namespaces for ``missing`` prefixes (from the extension schema's ``known`` ones, then the SEC
    and well-known registries), in the order a repair declares them, and the warning that says so."""
    table = {**WELL_KNOWN, **_sec_guesses(missing, known), **known}
    added = {p: table[p] for p in sorted(missing) if p in table}
    unknown = sorted(p for p in missing if p not in table)
    msg = f"the document uses undeclared namespace prefixes {', '.join(sorted(missing))}; declared them from the extension schema and the standard registries"
    if unknown:
        msg += f" (no namespace found for {', '.join(unknown)}: facts using them are skipped)"
    return added, Warning_("undeclared-prefix", msg, name)


def repair(data: bytes, missing: set[str], known: dict[str, str], *, name: str) -> tuple[etree._Element, Warning_]:
    """Re-parse ``data`` with declarations for ``missing`` prefixes added to its root element (for a
    document that declares namespaces below its root too; else the loader hands the
    :func:`declarations` to the inline reader and parses once)."""
    added, warning = declarations(missing, known, name=name)
    decls = " ".join(f'xmlns:{p}="{ns}"' for p, ns in added.items())
    m = re.search(rb"<html\b", data)
    patched = data[: m.end()] + b" " + decls.encode() + data[m.end():] if m else data
    return parse_xml(patched, name=name), warning


_SEC_FAMILIES = ("cyd", "ecd", "dei", "country", "currency", "exch", "stpr", "naics", "sic", "spac", "ffd", "rxp", "oef", "sro", "snj")


def _sec_guesses(missing: set[str], known: dict[str, str]) -> dict[str, str]:
    """SEC taxonomies share a release year with dei; use it for SEC prefixes nothing else names."""
    year = None
    for ns in known.values():
        m = re.match(r"^http://xbrl\.sec\.gov/\w+/(\d{4})$", ns)
        if m:
            year = m.group(1)
            break
    if year is None:
        return {}
    return {p: f"http://xbrl.sec.gov/{p}/{year}" for p in missing if p in _SEC_FAMILIES}
