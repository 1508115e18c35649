"""Real filings of the data root, edited in memory, for the rule tests that need a real filing the rule
must flag (or must stop flagging).

A rule test proves that a rule fires on real material: it loads a filing of the data root, changes one
thing and runs the rule on the copy. The edits come one function per kind:

* facts: :func:`edited` drops, changes or adds facts (:func:`fact` and :func:`fact_like` build the added
  ones), :func:`with_document_type` relabels the report;
* contexts: :func:`with_dimension` moves facts onto an axis, :func:`without_dimensions` off every axis;
* relationships: :func:`with_arcs` adds or drops linkbase arcs (:func:`arc` builds one);
* anything else (concepts, labels, contexts and facts at once): :func:`replaced`, which every edit
  goes through.

A loaded filing is never changed in place: the filing cache may hand equal filings to other tests, and
``auditflow.mutations`` (which changes fact values only) keeps the same rule. Filings built from scratch
are :mod:`builders`' business; the rule tests' layout is in docs/rules/README.md.
"""
from __future__ import annotations

import copy
from dataclasses import fields, replace
from decimal import Decimal
from pathlib import Path
from typing import Callable, Iterable

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.duplicates import find_duplicates
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Arc, Context, Fact
from auditflow.xbrl.qname import QName

_FIELDS = frozenset(f.name for f in fields(Filing))


# -- loading and running -------------------------------------------------------------------------------------

def load(data_root: Path, name: str) -> Filing:
    """The filing ``name`` of the data root: a bare folder name, looked for under filings/ and then
    filings-rolled/ (as ``auditflow check`` takes it), or ``filings/<folder>`` / ``filings-rolled/<folder>``.

    Loaded through the filing cache, which gives what a fresh load would.

    :raises FileNotFoundError: no such folder.
    """
    candidates = [data_root / name] if "/" in name else [data_root / sub / name for sub in ("filings", "filings-rolled")]
    for path in candidates:
        if path.is_dir():
            return build_environment(path).filing
    raise FileNotFoundError(f"no filing {name} under {data_root}")


def run_rule(rule: str, filing: Filing, data_root: Path):
    """Rule ``rule`` (``"0137"``) run on ``filing`` with the data root's resources."""
    return registry.get(rule).run(build_environment(filing), Resources(data_root))


# -- the one copy every edit makes ---------------------------------------------------------------------------

def replaced(filing: Filing, **changes) -> Filing:
    """A copy of ``filing`` with its own lists and dicts, ``changes`` (fields of :class:`Filing`) put in,
    and its duplicate fact sets found again, as a load would have found them.

    Shallow on purpose: a filing whose labels are still deferred keeps its reader unread (no DQC rule
    reads labels; see ``Filing.defer_labels``).

    :raises TypeError: a change names no field of :class:`Filing`.
    """
    unknown = set(changes) - _FIELDS
    if unknown:
        raise TypeError(f"Filing has no field {', '.join(sorted(unknown))}")
    out = copy.copy(filing)
    for name, value in vars(filing).items():
        if isinstance(value, (list, dict)):
            setattr(out, name, type(value)(value))
    if "labels" in changes:
        vars(out).pop("_read_labels", None)
    for name, value in changes.items():
        setattr(out, name, value)
    out.duplicates = find_duplicates(out)
    return out


# -- facts -------------------------------------------------------------------------------------------------

def edited(filing: Filing, *, drop: Callable[[Fact], bool] | None = None, change: Callable[[Fact], Fact] | None = None,
           add: Iterable[Fact] = ()) -> Filing:
    """A copy whose facts are those ``drop`` does not select, each passed through ``change``, then ``add``.

    Added facts are numbered after the last fact, so one without an id still has a key of its own.
    """
    facts = [change(f) if change else f for f in filing.facts if not (drop and drop(f))]
    start = max((f.index for f in facts), default=0) + 1
    return replaced(filing, facts=facts + [replace(f, index=start + n) for n, f in enumerate(add)])


def fact(concept: QName, value, context_id: str, *, unit: str | None, decimals=None) -> Fact:
    """A new fact to add with :func:`edited`, in one of the filing's own contexts (``unit=None``: not numeric)."""
    return Fact(concept, context_id, None if value is None else str(value), unit, decimals)


def fact_like(like: Fact, concept: QName, value) -> Fact:
    """A new fact of ``concept`` in the context, unit and decimals of ``like``."""
    return fact(concept, value, like.context_id, unit=like.unit_id, decimals=like.decimals)


def with_document_type(filing: Filing, value: str) -> Filing:
    """A copy whose dei:DocumentType facts say ``value``."""
    return edited(filing, change=lambda f: replace(f, value=value)
                  if f.concept.local == "DocumentType" and f.concept.namespace.startswith("http://xbrl.sec.gov/dei/") else f)


# -- contexts ----------------------------------------------------------------------------------------------

def with_dimension(filing: Filing, which: Callable[[Fact], bool], axis: QName, member) -> Filing:
    """A copy where the facts ``which`` selects move to copies of their contexts with ``axis`` = ``member``
    added (replacing that axis if the context had it)."""
    return _recontext(filing, which, lambda dims: [(a, m) for a, m in dims if a != axis] + [(axis, member)],
                      axis.local)


def without_dimensions(filing: Filing, which: Callable[[Fact], bool]) -> Filing:
    """A copy where the facts ``which`` selects move to copies of their contexts without dimensions."""
    return _recontext(filing, which, lambda dims: [], "nodims")


def _recontext(filing: Filing, which: Callable[[Fact], bool], new_dims: Callable[[tuple], list], tag: str) -> Filing:
    contexts: dict[str, Context] = dict(filing.contexts)
    moved: dict[str, str] = {}
    for f in filing.facts:
        if which(f) and f.context_id not in moved:
            ctx = filing.contexts[f.context_id]
            new_id = f"{ctx.id}-{tag}"
            dims = tuple(sorted(new_dims(ctx.dimensions), key=lambda am: am[0].clark()))
            contexts[new_id] = replace(ctx, id=new_id, dimensions=dims)
            moved[f.context_id] = new_id
    facts = [replace(f, context_id=moved[f.context_id]) if which(f) else f for f in filing.facts]
    return replaced(filing, facts=facts, contexts=contexts)


# -- relationships -----------------------------------------------------------------------------------------

def with_arcs(filing: Filing, *, add: Iterable[Arc] = (), drop: Callable[[Arc], bool] | None = None) -> Filing:
    """A copy without the arcs ``drop`` selects and with ``add`` after the rest."""
    return replaced(filing, arcs=[*(a for a in filing.arcs if not (drop and drop(a))), *add])


def arc(kind: str, arcrole: str, role: str, source: QName, target: QName, *, weight: int | None = None,
        order: int = 1000) -> Arc:
    """A new arc to add with :func:`with_arcs` (last among its siblings unless ``order`` says otherwise)."""
    return Arc(kind, arcrole, role, source, target, order=Decimal(order),
               weight=Decimal(weight) if weight is not None else None)


# -- finding what to edit ----------------------------------------------------------------------------------

def concept_is(local: str) -> Callable[[Fact], bool]:
    """Selects the facts whose concept has this local name."""
    return lambda f: f.concept.local == local


def first(filing: Filing, test: Callable[[Fact], bool]) -> Fact:
    """The first fact, in document order, that ``test`` selects."""
    return next(f for f in filing.facts if test(f))


def context_where(filing: Filing, test: Callable[[Context], bool]) -> str:
    """The id of the first context (sorted by id) for which ``test(context)`` holds."""
    return next(cid for cid, ctx in sorted(filing.contexts.items()) if test(ctx))
