"""Load a filing package into a :class:`Filing`: facts, contexts, units, the filer's DTS, duplicates.

The loader is strict about what would make an audit wrong (a fact without its context or unit, a
missing linkbase) and lenient about what merely limits it (standard taxonomies not available
offline): the first raises a typed error, the second becomes a recorded warning.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from itertools import chain
from operator import attrgetter
from pathlib import Path
from typing import Callable

from auditflow.errors import InputError, MalformedXBRLError
from auditflow.xbrl.discovery import find_entry_documents
from auditflow.xbrl.dts import DTSWalker
from auditflow.xbrl.duplicates import find_duplicates
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.gc_pause import collector_paused
from auditflow.xbrl.instance import ParsedInstance, parse_instance
from auditflow.xbrl.linkbase import effective_arcs, read_deferred_labels
from auditflow.xbrl.numbers import MAX_EXPONENT, number_problem, short
from auditflow.xbrl.model import Concept, Fact, Warning_, make_concept, make_fact, plain_decimal  # noqa: F401 - re-exported
from auditflow.xbrl.nsscope import root_only_namespaces
from auditflow.xbrl.prefix_repair import declarations, prefixes_from_schema, repair, schema_ref, undeclared_prefixes
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml
from auditflow.xbrl.source import PackageSource

ExternalResolver = Callable[[str, str], "QName | None"]


def load_filing(path: str | Path, *, external_resolver: ExternalResolver | None = None, observe: object | None = None) -> Filing:
    """Read a filing given as a folder, a zip, an instance ``.xml`` or an inline ``.htm``.

    ``external_resolver(url, fragment)`` names concepts behind locators into standard taxonomies when
    their schemas are available (a :class:`TaxonomySet` provides one); without it the FASB/SEC id
    convention is used. ``observe`` is told which files were read (see
    :mod:`auditflow.xbrl.filing_cache`).

    :raises InputError: missing or unreadable files, hostile XML or archives.
    :raises MalformedXBRLError: XBRL too broken to audit (e.g. a fact whose context is missing).
    """
    with collector_paused():  # a load makes no reference cycles: see auditflow.xbrl.gc_pause
        return _load(path, external_resolver, observe)


def _load(path: str | Path, external_resolver: ExternalResolver | None, observe: object | None) -> Filing:
    src = PackageSource.open(path)
    src.observe = observe
    try:
        entry = find_entry_documents(src)
        parsed = _parse_entry(src, entry.kind, entry.locations, entry.contents)
        filing = Filing(source=str(path), documents=list(entry.locations), is_inline=entry.kind == "inline")
        if entry.note:
            filing.warnings.append(Warning_("entry-choice", entry.note))
        _take_instance(filing, parsed)
        walker = DTSWalker(src, external_resolver=external_resolver)
        origin = entry.locations[0]
        refs = [(h, "schema") for h in parsed.schema_refs] + [(h, "linkbase") for h in parsed.linkbase_refs]
        if not parsed.schema_refs:
            raise MalformedXBRLError("the instance has no schemaRef, so its concepts cannot be identified", path=origin)
        dts = walker.walk(refs, referenced_from=origin)
        filing.warnings.extend(dts.warnings)
        filing.imported_urls = sorted(set(dts.external_urls))
        for info in dts.schemas.values():
            filing.roles.update(info.roles)
            for c in info.by_name.values():
                filing.concepts[c.qname] = c
        filing.arcs = effective_arcs(dts.linkbases.arcs)
        filing.labels = read = dts.linkbases.labels
        deferred = dts.linkbases.deferred_labels  # the walker leaves label links for later: read on first use
        if deferred:
            filing.defer_labels(lambda: read + read_deferred_labels(deferred))
        if dts.linkbases.unresolved_locators:
            sample = ", ".join(sorted(set(dts.linkbases.unresolved_locators))[:5])
            filing.warnings.append(Warning_(
                "unresolved-locator",
                f"{len(dts.linkbases.unresolved_locators)} linkbase locators name no known concept (e.g. {sample}); their arcs were dropped",
            ))
        _fill_concepts(filing)
        filing.duplicates = find_duplicates(filing)
        return filing
    finally:
        src.close()


def _parse_entry(src: PackageSource, kind: str, locations: tuple[str, ...], contents: tuple[bytes, ...] = ()) -> ParsedInstance:
    """Parse the entry documents; ``contents`` are their bytes when discovery already read them."""
    if len(contents) != len(locations):
        contents = tuple(src.read(loc) for loc in locations)
    if kind != "inline":
        data = contents[0]
        return parse_instance(parse_xml(data, name=locations[0]), document=locations[0], source=data)
    from auditflow.xbrl.inline import parse_inline

    roots, repairs, sources, added = [], [], {}, {}
    for loc, data in zip(locations, contents):
        root = parse_xml(data, name=loc)
        missing = undeclared_prefixes(root)
        if not missing:
            sources[loc] = data  # the bytes root was parsed from (a re-parsed root was parsed from others)
        elif root_only_namespaces(root, data) is not None:
            # Every declaration stands on the root: the missing ones are handed to the reader as if the
            # root declared them, and the document is parsed once (issue 21: IBM's 1.7 MB 10-K twice).
            added[loc], warning = declarations(missing, _schema_prefixes(src, data, loc), name=loc)
            sources[loc] = data
        else:
            root, warning = repair(data, missing, _schema_prefixes(src, data, loc), name=loc)
        if missing:
            repairs.append(warning)
        roots.append((loc, root))
    parsed = parse_inline(roots, sources, added)
    parsed.warnings[:0] = repairs
    return parsed


def _schema_prefixes(src: PackageSource, data: bytes, loc: str) -> dict[str, str]:
    href = schema_ref(data)
    if not href:
        return {}
    try:
        return prefixes_from_schema(parse_xml(src.read(src.resolve(href, loc)), name=href))
    except InputError:
        return {}


def _take_instance(filing: Filing, parsed: ParsedInstance) -> None:
    """Copy facts over, checking each against its context and unit and normalising numbers."""
    filing.contexts = parsed.contexts
    filing.units = parsed.units
    filing.namespaces = parsed.namespaces
    filing.warnings.extend(parsed.warnings)
    facts: list[Fact] = []
    for f in parsed.facts:
        if f.context_id not in parsed.contexts:
            raise MalformedXBRLError(
                f"fact {f.concept} ({f.id or 'no id'}) refers to context {short(f.context_id)}, which the filing does not define",
                path=f.document, line=f.line,
            )
        if f.unit_id is not None and f.unit_id not in parsed.units:
            raise MalformedXBRLError(
                f"fact {f.concept} ({f.id or 'no id'}) refers to unit {short(f.unit_id)}, which the filing does not define",
                path=f.document, line=f.line,
            )
        if f.unit_id is not None and not f.is_nil:
            raw, f = f.value, _normalise_number(f)
            if f.value is None:  # NaN, INF or out of range: warned about, left out of every sum and check
                filing.warnings.append(_unusable_number(f, raw or ""))
                continue
        elif f.unit_id is None and (f.decimals is not None or f.precision is not None) and not f.is_nil:
            filing.warnings.append(Warning_(
                "numeric-without-unit",
                f"fact {f.concept} ({f.id or 'no id'}) has decimals or precision but no unitRef, so it is read as "
                "text and no rule checks it; a numeric fact needs its unit",
                f.document, f.line,
            ))
        facts.append(f)
    filing.facts = facts


# The common spellings of a reported number (optional minus, no leading zeros, optional fraction),
# normalised by string surgery exactly as plain_decimal would: "25871.0" -> "25871", "-0.50" -> "-0.5",
# "-0" -> "0". Anything else (exponents, "+", leading zeros, garbage) takes the Decimal path.
_SIMPLE_NUMBER = re.compile(r"(-?)(0|[1-9][0-9]*)(?:\.([0-9]*?)0*)?")


def _normalise_number(f: Fact) -> Fact:
    m = _SIMPLE_NUMBER.fullmatch(f.value) if f.value else None
    if m is not None:
        sign, whole, frac = m.groups()
        if len(whole) > MAX_EXPONENT + 1 or (frac and len(frac) > MAX_EXPONENT):
            return with_value(f, None)  # beyond any real amount (a 10,000-digit value): see numbers.MAX_EXPONENT
        text = f"{whole}.{frac}" if frac else whole
        if sign and text != "0":
            text = "-" + text
    else:
        try:
            d = Decimal(f.value or "")
        except InvalidOperation:
            raise MalformedXBRLError(
                f"numeric fact {f.concept} ({f.id or 'no id'}) has the non-numeric value {short(f.value or '')}",
                path=f.document, line=f.line,
            ) from None
        if number_problem(d) is not None:
            return with_value(f, None)
        text = plain_decimal(d)
    return f if text == f.value else with_value(f, text)


def _unusable_number(f: Fact, raw: str) -> Warning_:
    """The recorded problem of a numeric fact whose value is NaN, INF or beyond any real amount."""
    problem = number_problem(Decimal(raw))
    why = "not a number" if problem == "not a number" else f"out of range (|exponent| over {MAX_EXPONENT})"
    return Warning_("not-a-number", f"numeric fact {f.concept} ({f.id or 'no id'}) has the value {short(raw)}: {why}; "
                    "it is left out of every check and sum", f.document, f.line)


def with_value(f: Fact, value: str | None) -> Fact:
    """``dataclasses.replace(f, value=value)`` without its per-call field introspection, which cost
    more than reading the fact (tests/xbrl/test_load_speedups.py checks it stays equal to ``replace``)."""
    return make_fact(f.concept, f.context_id, value, f.unit_id, f.decimals, f.precision, f.id, f.is_nil, f.document, f.line,
                f.index)


_ENDS = attrgetter("source", "target")


def _fill_concepts(filing: Filing) -> None:
    """Make every concept used by a fact or an arc known, inferring period type from contexts."""
    contexts = filing.contexts
    period_types: dict[QName, str] = {}
    for f in filing.facts:
        if f.concept not in period_types:
            period_types[f.concept] = "instant" if contexts[f.context_id].period.is_instant else "duration"
    used = dict.fromkeys(period_types)
    used.update(dict.fromkeys(chain.from_iterable(map(_ENDS, filing.arcs))))  # source, target, source, ...: in C
    concepts = filing.concepts
    for q in used:  # hundreds of standard concepts known only from facts and locators: the positional maker
        if q not in concepts:
            pt = period_types.get(q)
            concepts[q] = make_concept(q, None, None, pt, None, None, None, None, "locator" if pt is None else "fact")
