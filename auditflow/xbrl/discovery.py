"""Find the instance or inline documents in what the user handed us.

A user gives a folder, a zip, an instance or an inline document. A folder may hold both the inline
original and the SEC-extracted ``_htm.xml`` instance of the same filing: we read the inline original,
since it is what the filer signed, and say so. Every inline document of a folder or zip is read, as
one Inline XBRL document set (the main document and its exhibits); an HTML file that tags nothing is
not part of it (docs/inline-document-sets.md).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from auditflow.errors import InputError
from auditflow.xbrl.safexml import as_utf8, root_start
from auditflow.xbrl.source import PackageSource

_INLINE_NS = b"http://www.xbrl.org/2013/inlineXBRL"
_XBRL_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?xbrl[\s>]")
_LINKBASE_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(linkbase|schema)[\s>]")
_IX_PREFIX = re.compile(rb"xmlns:([A-Za-z_][\w.-]*)\s*=\s*[\"']" + re.escape(_INLINE_NS) + rb"[\"']")
_IX_DEFAULT = re.compile(rb"xmlns\s*=\s*[\"']" + re.escape(_INLINE_NS) + rb"[\"']")


@dataclass(frozen=True)
class EntryDocuments:
    """The entry documents of a filing: instance or inline, where they are, and a note on the choice."""

    kind: str  # 'instance' | 'inline'
    locations: tuple[str, ...]
    note: str | None = None
    # The bytes of ``locations``, as read to sniff them: the loader parses these instead of reading
    # each entry document a second time (1.4 MB for the Apple 10-K's instance; issue 21).
    contents: tuple[bytes, ...] = field(default=(), repr=False, compare=False)


def sniff(data: bytes, size: int = 8192) -> str | None:
    """'inline', 'instance' or None from the first ``size`` bytes of a document's root element
    (UTF-16/32 read as such; the XML declaration, comments and DOCTYPE before the root skipped)."""
    text = as_utf8(data[: 4 * 1024 * 1024]) if data[:1] in (b"\x00", b"\xff", b"\xfe") or data[1:2] == b"\x00" else data
    start = root_start(text)
    head = text[start : start + size]
    if _INLINE_NS in head and (b"<html" in head or b":html" in head):
        return "inline"
    m_x = _XBRL_ROOT.search(head)
    m_l = _LINKBASE_ROOT.search(head)
    if m_x and (not m_l or m_x.start() < m_l.start()):
        return "instance"
    return None


def tags_inline_xbrl(data: bytes) -> bool:
    """Whether a document sniffed as inline holds any ``ix:`` element (a fact, a header...): an exhibit
    made from the filing's template may declare the namespace and tag nothing. Read from the bytes, so a
    skipped exhibit is never parsed; a document binding the namespace as its default counts as tagging."""
    if data[:1] in (b"\x00", b"\xff", b"\xfe") or data[1:2] == b"\x00":
        data = as_utf8(data)
    if _IX_DEFAULT.search(data):
        return True
    return any(b"<" + prefix + b":" in data for prefix in set(_IX_PREFIX.findall(data)))


def find_entry_documents(src: PackageSource) -> EntryDocuments:
    """The documents to read as facts.

    :raises InputError: when there is no instance or inline document, naming what was looked at.
    """
    if src.root.is_file() and not src.root.suffix.lower() == ".zip":
        name = src.root.name
        data = src.read(name)
        kind = sniff(data)
        if kind is None:
            raise InputError(
                "neither an XBRL instance (xbrli:xbrl root) nor an Inline XBRL document; "
                "give the filing's instance .xml, its .htm inline document, or the filing folder/zip",
                path=str(src.root),
            )
        return EntryDocuments(kind, (name,), contents=(data,))
    inline, instances, untagged = [], [], []
    read: dict[str, bytes] = {}
    for loc in src.list():
        low = loc.lower()
        if low.count(".zip/") > (1 if src.root.suffix.lower() == ".zip" else 0):
            continue  # documents inside a taxonomy archive are not entry points
        if low.endswith((".htm", ".html", ".xhtml")):
            data = src.read(loc)
            if sniff(data, 16384) == "inline":
                if tags_inline_xbrl(data):
                    inline.append(loc)
                    read[loc] = data
                else:
                    untagged.append(loc)
        elif low.endswith(".xml") and not re.search(r"_(cal|def|pre|lab|ref)\.xml$", low):
            data = src.read(loc)
            if sniff(data) == "instance":
                instances.append(loc)
                read[loc] = data
    if inline:
        notes = []
        if instances:
            notes.append(f"read the inline document(s) {', '.join(inline)}; ignored the extracted instance(s) {', '.join(instances)}")
        if untagged:
            notes.append(f"read the inline document set {', '.join(inline)}; left out {', '.join(untagged)}, which "
                         "declare(s) Inline XBRL but tag(s) nothing")
        return EntryDocuments("inline", tuple(inline), "; ".join(notes) or None, tuple(read[loc] for loc in inline))
    if len(instances) == 1:
        return EntryDocuments("instance", tuple(instances), contents=(read[instances[0]],))
    if instances:
        raise InputError(
            f"several XBRL instances found ({', '.join(instances)}); give the one to audit as the path",
            path=str(src.root),
        )
    raise InputError(
        "no XBRL instance or Inline XBRL document found in this folder/zip; expected an .xml with an "
        "xbrli:xbrl root or an .htm with ix: tags",
        path=str(src.root),
    )
