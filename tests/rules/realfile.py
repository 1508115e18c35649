"""Real filings of the data root, edited in memory, for the rule tests that mutate a real filing.

A test loads a filing (``filings/<name>`` or ``filings-rolled/<name>``) through the filing cache,
makes a copy with some facts dropped, changed or added, or with the document type changed, and runs
one rule on it. The loaded filing is never changed in place (the cache may hand it to other tests).
"""
from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from auditflow.graphs.environment import build_environment
from auditflow.rules import registry
from auditflow.rules.resources import Resources
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.model import Fact
from auditflow.xbrl.qname import QName


def load(data_root: Path, name: str) -> Filing:
    """The filing folder ``name`` under filings/ or filings-rolled/."""
    for sub in ("filings", "filings-rolled"):
        if (data_root / sub / name).is_dir():
            return build_environment(data_root / sub / name).filing
    raise FileNotFoundError(f"no filing {name} under {data_root}")


def edited(filing: Filing, *, drop: Callable[[Fact], bool] = lambda f: False,
           change: Callable[[Fact], Fact] = lambda f: f, add: Iterable[Fact] = ()) -> Filing:
    """A copy of ``filing`` whose facts are those not dropped, each passed through ``change``, then ``add``."""
    out = copy.copy(filing)  # shallow: keeps a deferred label reader without reading the labels
    facts = [change(f) for f in filing.facts if not drop(f)]
    start = max((f.index for f in facts), default=0) + 1
    out.facts = facts + [replace(f, index=start + n) for n, f in enumerate(add)]
    return out


def with_document_type(filing: Filing, value: str) -> Filing:
    """A copy whose dei:DocumentType facts say ``value``."""
    return edited(filing, change=lambda f: replace(f, value=value)
                  if f.concept.local == "DocumentType" and f.concept.namespace.startswith("http://xbrl.sec.gov/dei/") else f)


def with_dimension(filing: Filing, which: Callable[[Fact], bool], axis: QName, member) -> Filing:
    """A copy where the facts ``which`` selects move to copies of their contexts with ``axis`` = ``member``
    added (replacing that axis if the context had it)."""
    return _recontext(filing, which, lambda dims: [(a, m) for a, m in dims if a != axis] + [(axis, member)],
                      axis.local)


def without_dimensions(filing: Filing, which: Callable[[Fact], bool]) -> Filing:
    """A copy where the facts ``which`` selects move to copies of their contexts without dimensions."""
    return _recontext(filing, which, lambda dims: [], "nodims")


def _recontext(filing: Filing, which: Callable[[Fact], bool], new_dims: Callable[[tuple], list], tag: str) -> Filing:
    out = edited(filing)
    out.contexts = dict(filing.contexts)
    moved: dict[str, str] = {}
    for f in filing.facts:
        if which(f) and f.context_id not in moved:
            ctx = filing.contexts[f.context_id]
            dims = tuple(sorted(new_dims(ctx.dimensions), key=lambda am: am[0].clark()))
            new_id = f"{ctx.id}-{tag}"
            out.contexts[new_id] = replace(ctx, id=new_id, dimensions=dims)
            moved[f.context_id] = new_id
    out.facts = [replace(f, context_id=moved[f.context_id]) if which(f) else f for f in out.facts]
    return out


def concept_is(local: str) -> Callable[[Fact], bool]:
    return lambda f: f.concept.local == local


def run_rule(rule: str, filing: Filing, data_root: Path):
    return registry.get(rule).run(build_environment(filing), Resources(data_root))


def codes(result) -> list[str]:
    return [f.code for f in result.findings]
