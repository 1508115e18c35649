"""Read an Inline XBRL 1.1 document set into the same :class:`ParsedInstance` an instance gives.

An inline filing hides the XBRL instance inside XHTML: contexts and units sit in ``ix:header``, and
each fact is a tag around the figure or text a reader sees. This module recovers the facts as an
XBRL processor would (transformation rules, ``scale``, ``sign``, continuations, exclusions), so
that checks downstream cannot tell whether the filer sent inline or plain XBRL.

A fact whose text cannot be read is recorded as a warning and left out, rather than stopping the
load: one mistyped date must not hide the thousand other facts from the auditor.
"""
from __future__ import annotations

import copy
import decimal
import re
from decimal import Decimal

from lxml import etree

from auditflow.errors import MalformedXBRLError
from auditflow.xbrl.instance import (
    LINK,
    XBRLI,
    XLINK,
    XSI,
    ParsedInstance,
    _MemberNames,
    parse_context,
    parse_decimals,
    parse_unit,
)
from auditflow.xbrl.model import Fact, Warning_, make_fact, plain_decimal
from auditflow.xbrl.nsscope import RootNames
from auditflow.xbrl.numbers import MAX_SCALE
from auditflow.xbrl.qname import QName
from auditflow.xbrl.transforms import apply_transform

IX = "http://www.xbrl.org/2013/inlineXBRL"
XHTML = "http://www.w3.org/1999/xhtml"
_XHTML_PREFIX = f"{{{XHTML}}}"
_XHTML_ANY = f"{{{XHTML}}}*"

_NON_FRACTION = f"{{{IX}}}nonFraction"
_XSI_NIL = f"{{{XSI}}}nil"
_NON_NUMERIC = f"{{{IX}}}nonNumeric"
_FRACTION = f"{{{IX}}}fraction"
_CONTINUATION = f"{{{IX}}}continuation"
_EXCLUDE = f"{{{IX}}}exclude"
# HTML elements that never have content and so are written self-closed in escaped markup.
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
# The sign of a nonFraction lives in its sign attribute, never in the text (transformed or not).
_UNSIGNED_DECIMAL = re.compile(r"(\d+(\.\d*)?|\.\d+)", re.ASCII)
_SPECIAL_NUMBERS = frozenset({"INF", "-INF", "NaN"})
_HAND_SCALED_DIGITS = 200  # far inside the bounds where plain_decimal keeps an exponent (auditflow.xbrl.numbers)

Document = tuple[str, etree._Element]


class _FactProblem(ValueError):
    """A fact that cannot be built; ``code`` becomes the warning code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def is_inline_root(root: etree._Element) -> bool:
    """An (X)HTML root that uses the Inline XBRL 1.1 namespace anywhere."""
    if not isinstance(root.tag, str) or etree.QName(root).localname != "html":
        return False
    if IX in root.nsmap.values():
        return True
    return next(root.iter(f"{{{IX}}}*"), None) is not None


class _Names(RootNames):
    """Prefixed names of one document (fact names, formats) resolved to QNames, with the explicit
    members' memo of its contexts. When the document declares namespaces on its root only
    (:meth:`_MemberNames.for_document`, on the bytes it was parsed from), each distinct text is resolved
    once (:class:`~auditflow.xbrl.nsscope.RootNames`): ``el.nsmap`` walks the ancestors and builds a
    dict, about a fifth of a numeric fact's reading (issue 21: the 2.4 MB inline 10-Q of aeon)."""

    def __init__(self, members: _MemberNames | None) -> None:
        super().__init__(members.nsmap if members is not None else None)
        self.members = members


def parse_inline(documents: list[Document], sources: dict[str, bytes] | None = None,
                 added: dict[str, dict[str, str]] | None = None) -> ParsedInstance:
    """Read every document of an inline document set, in the order given. ``sources``, the bytes of
    each document by name (as parsed: none for a re-parsed one), lets names be read once per document
    (:class:`_Names`); the result is the same. ``added`` holds, by name, declarations a document that
    declares namespaces on its root only lacks (:func:`~auditflow.xbrl.prefix_repair.declarations`): it
    is read as if its root declared them first. The XHTML elements of escaped text blocks are left
    without their namespace in the documents (see :func:`_markup`).

    ``Fact.index`` runs across the whole set in document order, so a fact's key is stable for
    a given set. Contexts, units and references from every ``ix:header`` are merged into the one
    instance (docs/inline-document-sets.md): an id the set defines in two documents breaks Inline
    XBRL's rule that ids are unique across the set, and is read once with a warning when both say the
    same, refused when they differ. Facts and references written for another target document (a
    ``target`` attribute) are left out of this, the default target's instance, with a warning.

    :raises MalformedXBRLError: when a context or unit is unusable (as for a plain instance), or two
        documents of the set define one context or unit id differently.
    """
    out = ParsedInstance(document=documents[0][0] if documents else "")
    names: dict[str, _Names] = {}
    defined_in: dict[tuple[str, str], tuple[str, int | None]] = {}  # ("context"|"unit", id) -> document, line
    for name, root in documents:
        extra = (added or {}).get(name, {})
        for prefix, ns in {**extra, **root.nsmap}.items():  # as a repaired root lists them: the added first
            out.namespaces.setdefault(prefix or "", ns)
        names[name] = _Names(_MemberNames.for_document(root, (sources or {}).get(name), extra))
        _read_header(root, name, out, names[name].members, defined_in)
    continuations = _continuations(documents, out)
    for name, root in documents:
        doc_names = names[name]
        for el in root.iter(_NON_FRACTION, _NON_NUMERIC, _FRACTION):
            if el.get("target") is not None:
                out.warnings.append(_warning("ix-target", el, name, f"written for the target document {el.get('target')!r}, "
                                             "not the default one this instance is; fact left out"))
                continue
            if el.tag == _FRACTION:
                out.warnings.append(_warning("ix-fraction", el, name, "ix:fraction is not supported; fact skipped"))
                continue
            try:
                out.facts.append(_fact(el, name, len(out.facts), continuations, out, doc_names))
            except _FactProblem as exc:
                out.warnings.append(_warning(exc.code, el, name, str(exc)))
    return out


def _warning(code: str, el: etree._Element, document: str, message: str) -> Warning_:
    name = el.get("name") or etree.QName(el).localname
    fid = el.get("id")
    what = f"{name}{f' (id {fid})' if fid else ''}"
    return Warning_(code=code, message=f"{what}: {message}", document=document, line=el.sourceline)


def _read_header(root: etree._Element, name: str, out: ParsedInstance, members: _MemberNames | None,
                 defined_in: dict[tuple[str, str], tuple[str, int | None]]) -> None:
    """Collect references, contexts and units from every ``ix:references``/``ix:resources``
    (explicit members named through ``members`` when given, see :func:`parse_context`). ``defined_in``
    remembers where each context and unit id of the set was defined, so that another document's
    definition of the same id is judged by :func:`_define` (within one document, as in a plain
    instance, the last definition is kept)."""
    for refs in root.iter(f"{{{IX}}}references"):
        if refs.get("target") is not None:
            out.warnings.append(_warning("ix-target", refs, name, f"references for the target document "
                                         f"{refs.get('target')!r}, not the default one this instance is; left out"))
            continue
        for el in refs:
            href = el.get(f"{{{XLINK}}}href")
            if href is None:
                continue
            if el.tag == f"{{{LINK}}}schemaRef" and href not in out.schema_refs:
                out.schema_refs.append(href)
            elif el.tag == f"{{{LINK}}}linkbaseRef" and href not in out.linkbase_refs:
                out.linkbase_refs.append(href)
    for res in root.iter(f"{{{IX}}}resources"):
        for el in res:
            if el.tag == f"{{{XBRLI}}}context":
                c = parse_context(el, name, members)
                if _define("context", c.id, c, out.contexts, name, el.sourceline, defined_in, out):
                    out.contexts[c.id] = c
            elif el.tag == f"{{{XBRLI}}}unit":
                # an undeclared iso4217 prefix is tolerated, with a warning
                u = parse_unit(el, name, out.warnings, members.nsmap if members is not None else None)
                if _define("unit", u.id, u, out.units, name, el.sourceline, defined_in, out):
                    out.units[u.id] = u


def _define(kind: str, id_: str, item, known: dict, name: str, line: int | None,
            defined_in: dict[tuple[str, str], tuple[str, int | None]], out: ParsedInstance) -> bool:
    """Whether ``item`` (a context or unit read from document ``name``) is to be stored under ``id_``.

    Inline XBRL 1.1 wants every id unique across the document set. The same id defined by another
    document of the set is, when both definitions say the same (a context's entity, period and
    dimensions; a unit's measures), read once and warned about; when they differ, no reading of the
    facts that refer to it could be right, and the load stops.

    :raises MalformedXBRLError: the two documents define ``id_`` differently.
    """
    first = defined_in.setdefault((kind, id_), (name, line))
    if first[0] == name:
        return True
    where = f"{first[0]}{f' line {first[1]}' if first[1] else ''}"
    if _same(known[id_], item):
        out.warnings.append(Warning_("ix-duplicate-id", f"{kind} {id_!r} is defined again, alike, after {where}; "
                                     "ids must be unique across an inline document set; read once", name, line))
        return False
    raise MalformedXBRLError(f"{kind} {id_!r} is defined differently here and in {where}: ids must be unique across "
                             "an inline document set, and the facts that refer to it cannot be read", path=name, line=line)


def _same(a, b) -> bool:
    """Two definitions of a context or unit say the same (a context's source line aside)."""
    if hasattr(a, "period"):
        return (a.entity_scheme, a.entity_id, a.period, a.dimensions) == (b.entity_scheme, b.entity_id, b.period, b.dimensions)
    return a == b


def _continuations(documents: list[Document], out: ParsedInstance) -> dict[str, etree._Element]:
    """``ix:continuation`` elements by id across the set (continuedAt may cross documents)."""
    found: dict[str, etree._Element] = {}
    for name, root in documents:
        for el in root.iter(_CONTINUATION):
            cid = el.get("id")
            if not cid:
                out.warnings.append(_warning("ix-continuation", el, name, "ix:continuation has no id"))
            elif cid in found:
                out.warnings.append(_warning("ix-continuation", el, name, f"duplicate continuation id {cid!r}"))
            else:
                found[cid] = el
    return found


def _fact(
    el: etree._Element, document: str, index: int, continuations: dict[str, etree._Element], out: ParsedInstance,
    names: _Names | None = None,
) -> Fact:
    names = names if names is not None else _Names(None)
    get = el.get
    name = get("name")
    context = get("contextRef")
    numeric = el.tag == _NON_FRACTION
    unit = get("unitRef") if numeric else None
    if not name or not context or (numeric and not unit):
        raise _FactProblem("ix-fact", "a fact needs name, contextRef (and unitRef if numeric); fact skipped")
    nsmap = names.nsmap(el)  # once per fact: el.nsmap walks every ancestor, and the format needs it too
    try:
        concept = names.qname(name, nsmap)
    except ValueError as exc:
        raise _FactProblem("ix-fact", f"{exc}; fact skipped") from None
    is_nil = get(_XSI_NIL) in ("true", "1")
    value: str | None = None
    if not is_nil:
        value = (_numeric_value(el, nsmap, names) if numeric
                 else _non_numeric_value(el, document, continuations, out, nsmap, names))
    line = el.sourceline
    try:
        decimals = parse_decimals(get("decimals"), where=document, line=line)
    except MalformedXBRLError as exc:
        raise _FactProblem("ix-fact", f"{exc}; fact skipped") from None
    # Fact(concept, context_id, value, unit_id, decimals, precision, id, is_nil, document, line, index)
    return make_fact(concept, context, value, unit, decimals, get("precision"), get("id"), is_nil, document, line, index)


def _transform(el: etree._Element, text: str, nsmap: dict | None = None, names: _Names | None = None) -> str:
    """Apply the element's ``format``, turning every failure into a located ix-transform problem."""
    fmt = el.get("format")
    try:
        nsmap = el.nsmap if nsmap is None else nsmap
        return apply_transform(names.qname(fmt, nsmap) if names is not None else QName.parse(fmt, nsmap), text)
    except ValueError as exc:  # TransformError, or an undeclared prefix in the format QName
        message = f"cannot read {_short(text)} with format {fmt!r}: {exc}; fact skipped"
        raise _FactProblem("ix-transform", message) from None


def _short(text: str, limit: int = 80) -> str:
    """A quotable excerpt: warnings about a 100 kB text block must stay readable."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _numeric_value(el: etree._Element, nsmap: dict | None = None, names: _Names | None = None) -> str:
    """Displayed text -> transform -> x 10**scale -> sign, as a plain decimal string."""
    text = "".join(el.itertext()) if len(el) else (el.text or "")  # one text node mostly: no iterator for it
    value = _transform(el, text, nsmap, names) if el.get("format") else text.strip()
    negative = el.get("sign") == "-"
    if value in _SPECIAL_NUMBERS:
        if negative and value != "NaN":
            value = "INF" if value.startswith("-") else "-INF"
        return value
    if not _UNSIGNED_DECIMAL.fullmatch(value):
        message = f"{_short(text)} gives {_short(value)}, not an unsigned number; fact skipped"
        raise _FactProblem("ix-transform", message)
    try:
        scale = int(el.get("scale") or 0)
    except ValueError:
        raise _FactProblem("ix-fact", f"invalid scale {_short(el.get('scale') or '')}; fact skipped") from None
    if abs(scale) > MAX_SCALE:
        raise _FactProblem("ix-fact", f"scale {scale} is out of range (|scale| over {MAX_SCALE}); fact skipped")
    return _scaled(value, negative, scale)


def _scaled(value: str, negative: bool, scale: int) -> str:
    """``plain_decimal(±Decimal(value), scale)`` for an unsigned decimal ``value`` ("1234", "1.50",
    ".5"), written by hand: the digits with the decimal point moved ``scale`` places, leading and
    trailing zeros dropped. A Decimal and a context sized to its digits cost a fifth of reading a
    numeric inline fact (issue 21); whole numbers scaled up were written by hand first, figures with a
    fraction (per-share amounts, percentages) and negative scales since. The result is the same
    (tests/xbrl/test_inline_scaled.py); digits other than ASCII, and negated values beyond the context's
    precision (which ``-Decimal`` rounds), take the Decimal path."""
    if value.isascii() and len(value) + abs(scale) <= _HAND_SCALED_DIGITS:
        whole, _, fraction = value.partition(".")
        digits = (whole + fraction).lstrip("0")
        if not digits:
            return "0"
        if not negative or len(digits) <= decimal.getcontext().prec:
            point = len(digits) - len(fraction) + scale  # where the decimal point falls in ``digits`` once moved
            if point >= len(digits):
                text = digits + "0" * (point - len(digits))
            elif point > 0:
                fraction = digits[point:].rstrip("0")
                text = f"{digits[:point]}.{fraction}" if fraction else digits[:point]
            else:
                text = "0." + "0" * -point + digits.rstrip("0")
            return "-" + text if negative else text
    number = Decimal(value)
    return plain_decimal(-number if negative else number, scale)


def _non_numeric_value(
    el: etree._Element, document: str, continuations: dict[str, etree._Element], out: ParsedInstance,
    nsmap: dict | None = None, names: _Names | None = None,
) -> str:
    """The fact's content and that of its continuation chain, without ``ix:exclude`` content.

    With ``escape="true"`` the content is kept as XHTML markup (namespace-free, as SEC instances
    carry it); otherwise it is the concatenated text. A ``format`` applies to the whole text.
    """
    parts = [el, *_chain(el, document, continuations, out)]
    if el.get("format"):
        return _transform(el, "".join(_text(p) for p in parts), nsmap, names)
    if el.get("escape") in ("true", "1"):
        return "".join(_markup(p) for p in parts)
    return "".join(_text(p) for p in parts)


def _chain(
    el: etree._Element, document: str, continuations: dict[str, etree._Element], out: ParsedInstance
) -> list[etree._Element]:
    """Follow ``continuedAt``; a missing target or a loop is warned about and ends the chain."""
    chain: list[etree._Element] = []
    seen: set[str] = set()
    target = el.get("continuedAt")
    while target:
        if target in seen:
            out.warnings.append(_warning("ix-continuation", el, document, f"continuation loop at {target!r}"))
            break
        seen.add(target)
        cont = continuations.get(target)
        if cont is None:
            out.warnings.append(_warning("ix-continuation", el, document, f"no ix:continuation with id {target!r}"))
            break
        chain.append(cont)
        target = cont.get("continuedAt")
    return chain


def _text(el: etree._Element) -> str:
    """Descendant text in document order, skipping ``ix:exclude`` subtrees (but not their tails)."""
    pieces = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str) and child.tag != _EXCLUDE:
            pieces.append(_text(child))
        pieces.append(child.tail or "")
    return "".join(pieces)


_EMPTY = etree.XPath("descendant-or-self::*[not(node())]")  # elements with no text and no children


def _markup(el: etree._Element) -> str:
    """The content of ``el`` as XHTML markup with ix tags unwrapped and ``ix:exclude`` removed.

    The XHTML elements under ``el`` lose their namespace in the document itself, not in the copy that
    is serialised: text blocks nest (a policy inside its note), and a node renamed once is not renamed
    again for the next block that holds it (issue 21: half of the 13,000 renames of the inline 10-Q
    of aeon). Nothing else of the inline reader reads XHTML names; the markup is the same."""
    n = len(_XHTML_PREFIX)
    for node in el.iter(_XHTML_ANY):  # text blocks can hold thousands of nodes: one rename per node
        node.tag = node.tag[n:]
    work = copy.deepcopy(el)
    work.tail = None
    etree.strip_elements(work, _EXCLUDE, with_tail=False)
    etree.strip_tags(work, f"{{{IX}}}*")
    for node in _EMPTY(work):
        if node.tag not in _VOID:
            node.text = ""  # '<td></td>', not '<td/>': browsers read '<td/>' as an unclosed cell
    # A namespace-free wrapper, so that no ancestor's declarations (ix, xbrli...) leak into the markup.
    wrap = etree.Element("wrap")
    wrap.text = work.text
    wrap.extend(list(work))
    etree.cleanup_namespaces(wrap)
    serial = etree.tostring(wrap, encoding="unicode")
    if serial == "<wrap/>":
        return ""
    return serial[len("<wrap>") : -len("</wrap>")]
