"""Whether a data root holds what audit cases read from it, checked once before any case runs.

A data root that exists but lacks a part is what a half-restored CI cache looks like. Run as it is,
every case would fail somewhere else with a misleading message: without ``dqc/`` the checkers answer
differently from the recorded conversations, so each case shows up as an "LLM cache miss" with a
re-record command (re-recording would only record the broken setup); without the filings folders,
each case that names its filing fails on its own. So the plugin (and ``auditflow eval``) refuse such a
root up front, in one message naming every missing part (docs/pytest-plugin-notes.md, "The data root").

What cases read: ``dqc/`` (the DQC concept lists and form lookups every case's checkers use once a data
root is given), the filings folders (``filings/`` or ``filings-rolled/``: cases that name a filing
rather than give its path) and, with the LLM judge, ``finmr/judge_prompt.txt``. ``taxonomy/`` is read
by the command line's ``check``, not by cases, so it is only mentioned.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from auditflow.graphs.factory import FILING_FOLDERS
from auditflow.cases.judge_llm import PROMPT_FILE
from auditflow.cases.model import AuditCase
from auditflow.dataroot import ENV_VAR
from auditflow.errors import DataRootError

DQC = "dqc"
TAXONOMY = "taxonomy"


@dataclass(frozen=True, slots=True)
class MissingPart:
    """One part of the data root that is not there: its name(s) as shown, and what reads it."""

    shown: str
    reads: str

    def __str__(self) -> str:
        return f"{self.shown} ({self.reads})"


def names_filing(case: AuditCase) -> bool:
    """Whether the case names its filing by a data-root name or accession rather than a path that exists
    (the same order as :func:`auditflow.graphs.factory.resolve_filing`). Like that resolver it judges the
    path as written first: one that leads outside the case's folder is never looked up on the disk (it
    is refused when the case runs), and ``~`` is not expanded."""
    p = Path(case.filing)
    candidate = p if p.is_absolute() else case.file.parent / p
    if not Path(os.path.normpath(os.path.abspath(candidate))).is_relative_to(os.path.abspath(case.file.parent)):
        return False
    return not candidate.exists()


def missing_parts(root: Path, *, cases: Iterable[AuditCase] | None = None, judge: bool = False) -> list[MissingPart]:
    """The parts of ``root`` that the cases need and that are not there.

    ``cases`` None (the pytest plugin, which checks before collecting): every part cases may read is
    needed. Given (``auditflow eval``): the filings folders only when some case names its filing.
    """
    out: list[MissingPart] = []
    if not (root / DQC).is_dir():
        out.append(MissingPart(f"{DQC}/", "the DQC concept lists every case's checkers read"))
    needs_filings = cases is None or any(names_filing(c) for c in cases)
    if needs_filings and not any((root / f).is_dir() for f in FILING_FOLDERS):
        out.append(MissingPart(" or ".join(f"{f}/" for f in FILING_FOLDERS),
                               "the filings cases name; an empty folder will do if every case gives a path"))
    if judge and not (root / PROMPT_FILE).is_file():
        out.append(MissingPart(PROMPT_FILE.as_posix(), "the LLM judge's rubric"))
    return out


def check_case_root(root: Path | None, *, how: str, cases: Iterable[AuditCase] | None = None,
                    judge: bool = False, option: str = "--auditflow-data-root") -> None:
    """Refuse a data root that lacks what the cases need (no data root at all is fine: cases that need
    one are skipped, saying why).

    ``how``: where the root came from, as the message should say it; ``option``: the command's flag.

    :raises DataRootError: naming the root, every missing part and what to do.
    """
    if root is None:
        return
    missing = missing_parts(root, cases=cases, judge=judge)
    if not missing:
        return
    also = "" if (root / TAXONOMY).is_dir() else f" ({TAXONOMY}/ is missing too; cases do not read it.)"
    raise DataRootError(
        f"the data root {root} ({how}) lacks what audit cases read: {'; '.join(map(str, missing))}.{also} "
        f"Restore the whole data root (a partly restored cache? see ci/README.md), point {option} or "
        f"{ENV_VAR} at a complete one, or give none (the cases that need one are then skipped).")
