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
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return data  # UTF-16/32 with a BOM: the parser reads the BOM; cutting at a '<' byte would break it
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
    refuse_entity_declarations(data, name=name)
    parser = etree.XMLParser(**_PARSER_OPTS)
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if getattr(exc, "lineno", None) else None
        raise MalformedXBRLError(f"not well-formed XML: {_one_line(exc.msg)}", path=name, line=line) from None
    except (ValueError, MemoryError, RecursionError) as exc:  # e.g. an encoding lxml cannot switch to
        raise MalformedXBRLError(f"not readable XML ({type(exc).__name__}: {_one_line(str(exc))})", path=name) from None
    if root is None:
        raise MalformedXBRLError("empty document", path=name)
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):  # whatever the bytes hid from the check above
        raise _entities_refused(name)
    return root


def refuse_entity_declarations(data: bytes, *, name: str) -> None:
    """The pre-check, before any parser sees the bytes: a DOCTYPE in the prolog (after the XML
    declaration and any number of comments and PIs) together with an ``<!ENTITY`` anywhere is refused.
    It must hold on its own, without libxml2's expansion limits or the post-parse DTD check behind it
    (docs/reliability.md, "XML").

    :raises UnsafeInputError: naming ``name``.
    """
    text = as_utf8(data)  # the check reads the whole document in any encoding, not only its first bytes
    if _has_doctype(text) and _ENTITY_DECL.search(text):
        raise _entities_refused(name)


def _has_doctype(text: bytes) -> bool:
    """Whether a DOCTYPE stands in the prolog, however long the comments and PIs before it."""
    return bool(_DOCTYPE.match(text, _skip_comments_and_pis(text)))


def _skip_comments_and_pis(text: bytes, i: int = 0) -> int:
    """The index of the first byte from ``i`` that is neither whitespace, nor in a PI (``<?...?>``, the
    XML declaration included) or a comment (``<!--...-->``); ``len(text)`` if one never ends. Each
    terminator is searched after its opener (``<?>`` and ``<!-->`` open, they do not close) and
    skipped whole: ``?>`` is two bytes, ``-->`` three."""
    n = len(text)
    while i < n:
        while i < n and text[i] in b" \t\r\n":
            i += 1
        if text.startswith(b"<?", i):
            opener, closer = b"<?", b"?>"
        elif text.startswith(b"<!--", i):
            opener, closer = b"<!--", b"-->"
        else:
            return i
        end = text.find(closer, i + len(opener))
        if end < 0:
            return n
        i = end + len(closer)
    return n


def root_start(text: bytes) -> int:
    """Where the first element starts in UTF-8 ``text``: after the XML declaration, comments, PIs and
    a DOCTYPE of any length (a filing may open with a long comment)."""
    i = _skip_comments_and_pis(text, 3 if text.startswith(b"\xef\xbb\xbf") else 0)
    if _DOCTYPE.match(text, i):
        bracket, close = text.find(b"[", i), text.find(b">", i)
        end = text.find(b"]>", bracket) + 1 if 0 <= bracket < close else close
        if end <= 0:
            return len(text)
        i = _skip_comments_and_pis(text, end + 1)
    return i


def _entities_refused(name: str) -> UnsafeInputError:
    return UnsafeInputError(
        "the document declares XML entities in a DOCTYPE; XBRL never needs them and they are the "
        "vector of external-entity and entity-expansion attacks, so the file is refused",
        path=name,
    )


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit] + "..."


_BOMS = ((b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe\x00\x00", "utf-32"),  # these codecs drop the BOM
         (b"\xfe\xff", "utf-16"), (b"\xff\xfe", "utf-16"))
_NO_BOM = ((b"<\x00\x00\x00", "utf-32-le"), (b"\x00\x00\x00<", "utf-32-be"), (b"<\x00", "utf-16-le"), (b"\x00<", "utf-16-be"))


def as_utf8(data: bytes) -> bytes:
    """``data`` re-encoded as UTF-8 when it is UTF-16 or UTF-32 (by BOM or by its first '<'), else as is;
    for pattern checks only (the parser reads the original bytes)."""
    for marks in (_BOMS, _NO_BOM):
        for mark, codec in marks:
            if data.startswith(mark):
                return data.decode(codec, errors="replace").encode("utf-8", errors="replace")
    return data
