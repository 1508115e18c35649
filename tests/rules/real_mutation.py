"""Small edits of a real filing of the data root, for rule tests that need a filing the rule must flag.

A rule test proves the rule fires on real material by loading a filing from the data root, changing one
thing (a fact's concept or value, an added fact, an added or removed relationship) and running the rule on
the copy; the loaded filing is never changed in place (loaded filings are cached and shared, see
auditflow/mutations.py). Used by tests/rules/test_dqc_0137.py and the rule tests after it.
"""
from __future__ import annotations

from dataclasses import fields, replace
from decimal import Decimal
from pathlib import Path
from typing import Callable, Iterable

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.duplicates import find_duplicates
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import Arc, Context, Fact, Member
from auditflow.xbrl.qname import QName


def real(data_root: Path, name: str) -> Filing:
    """The filing ``name`` of the data root (under filings/ or filings-rolled/)."""
    for folder in ("filings", "filings-rolled"):
        path = data_root / folder / name
        if path.is_dir():
            return load_filing(path)
    raise FileNotFoundError(f"no filing {name} under {data_root}")


def copy(filing: Filing, **changes) -> Filing:
    """A copy of ``filing`` with its own containers and ``changes`` applied; duplicates recomputed."""
    own = {fl.name: (list(v) if isinstance(v := getattr(filing, fl.name), list) else dict(v) if isinstance(v, dict) else v)
           for fl in fields(filing)}
    out = replace(filing, **{**own, **changes})
    out.duplicates = find_duplicates(out)
    return out


def run_rule(rule: str, filing: Filing, data_root: Path):
    return registry.get(rule).run(build_environment(filing), Resources(data_root))


def codes(result) -> list[str]:
    return [f.code for f in result.findings]


def first(filing: Filing, test: Callable[[Fact], bool]) -> Fact:
    return next(f for f in filing.facts if test(f))


def rename(filing: Filing, fact: Fact, concept: QName) -> Filing:
    """``fact`` (and nothing else) reported with ``concept`` instead."""
    return copy(filing, facts=[replace(f, concept=concept) if f is fact else f for f in filing.facts])


def set_value(filing: Filing, fact: Fact, value) -> Filing:
    return copy(filing, facts=[replace(f, value=str(value)) if f is fact else f for f in filing.facts])


def add_fact(filing: Filing, like: Fact, concept: QName, value, *, dims: Iterable[tuple[QName, Member]] | None = None,
             unit: str | None = "same", decimals="same", nil: bool = False) -> Filing:
    """A new fact of ``concept`` in the context of ``like`` (or a copy of it with ``dims``)."""
    cid = like.context_id
    contexts = dict(filing.contexts)
    if dims is not None:
        base: Context = filing.contexts[cid]
        cid = f"{cid}-r5-{len(contexts)}"
        contexts[cid] = replace(base, id=cid, dimensions=tuple(sorted(dims, key=lambda am: am[0].clark())))
    new = Fact(concept, cid, None if nil else (str(value) if value is not None else None),
               like.unit_id if unit == "same" else unit, like.decimals if decimals == "same" else decimals,
               id=f"r5-{len(filing.facts)}", is_nil=nil, index=len(filing.facts))
    return copy(filing, facts=[*filing.facts, new], contexts=contexts)


def add_arcs(filing: Filing, arcs: Iterable[Arc]) -> Filing:
    return copy(filing, arcs=[*filing.arcs, *arcs])


def drop_arcs(filing: Filing, test: Callable[[Arc], bool]) -> Filing:
    return copy(filing, arcs=[a for a in filing.arcs if not test(a)])


def arc(kind: str, arcrole: str, role: str, source: QName, target: QName, *, weight: int | None = None,
        order: int = 1000) -> Arc:
    return Arc(kind, arcrole, role, source, target, order=Decimal(order),
               weight=Decimal(weight) if weight is not None else None)
