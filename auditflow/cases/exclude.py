"""The facts another set of cases audits, which ``auditflow cases generate --exclude`` never draws again.

A held-back split measures how much the tuning of prompts and profiles fitted the set it was tuned on
only if it shares nothing with that set: not the same case, and not the same fact asked another way
(the same search ending on the same fact is what tuning already saw). Drawing two sets from the same
filings with two seeds does not ensure that: real violations come from one reviewed list
(``docs/real-filings.md``), and the face statements offer a few dozen facts per filing. Two cases audit
the same fact when they name the same filing, concept, period and members: for a question, the fact its
expectation names (``expect.fact``, ``docs/query-forms.md``); for a concept-and-period query, that one.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from auditflow.cases.errors import GenerateError
from auditflow.graphs.factory import filing_name
from auditflow.cases.loader import is_case_file, load_case_file
from auditflow.cases.model import AuditCase

AuditedFact = tuple[str, str, str, tuple[tuple[str, str], ...]]  # (filing, concept, period, members sorted)


def audited_fact(filing: str, concept: str, period: str, dimensions: Iterable[tuple[str, str]]) -> AuditedFact:
    """The comparable identity of an audited fact (members in a fixed order)."""
    return filing, concept, period, tuple(sorted(dimensions))


def facts_audited_by(paths: Iterable[Path]) -> frozenset[AuditedFact]:
    """Every fact the cases under ``paths`` (case files, or folders searched for case files) audit.

    :raises GenerateError: a path that does not exist, or a folder with no case file in it (an excluded
        set that is silently empty would let the new set share every fact with it).
    :raises CaseFileError: a case file that cannot be read, with its line and field.
    """
    facts: set[AuditedFact] = set()
    for path in paths:
        files = _case_files(path)
        for file in files:
            facts.update(f for case in load_case_file(file) if (f := _fact_of(case)) is not None)
    return frozenset(facts)


def _case_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise GenerateError(f"--exclude {path}: no such file or folder; give the case set (a folder of "
                             "*.case.yaml files, or one file) whose facts the new cases must not audit")
    files = sorted(p for p in path.rglob("*") if p.is_file() and is_case_file(p))
    if not files:
        raise GenerateError(f"--exclude {path}: the folder holds no case file (*.case.yaml)")
    return files


def _fact_of(case: AuditCase) -> AuditedFact | None:
    name = case.filing if Path(case.filing).name == case.filing else filing_name(Path(case.filing))
    if case.expect.fact is not None:
        f = case.expect.fact
        return audited_fact(name, f.concept, f.period, f.dimensions)
    q = case.query
    if q.concept and q.period:
        return audited_fact(name, q.concept, q.period, q.dimensions)
    return None  # a question whose fact the case does not name: nothing to compare it by
