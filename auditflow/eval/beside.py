"""Another evaluation's results, shown beside this one's: ``auditflow eval ... --with-results FILE``.

``docs/results.md`` reports the starter corpus and, beside it, the hard corpus and its held-back
split. Those are evaluations of their own (other cases, other rows: the 0.5B model, the shuffled and
plain runs), each written by ``auditflow eval`` into its own folder with a ``results.json``. Reading
that file, instead of running the other cases again inside this evaluation, keeps one command per
case set, and the chain stays checked: the documented-results test reproduces every ``results.json``
from the cache byte for byte, and this report from them.

Only what the summary tables show is read, into typed rows; a file that is not an ``auditflow
eval`` results document is a usage error naming the file and what to do.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditflow.errors import AuditflowError
from auditflow.bootstrap import BootstrapResult, Comparison

FORMAT = 1  # auditflow.eval.report.FORMAT of the documents this reads


@dataclass(frozen=True, slots=True)
class Count:
    """A Joint ACC numerator and denominator."""

    right: int
    n: int


@dataclass(frozen=True, slots=True)
class BesideRow:
    """One configuration of the other evaluation: its totals and its families' counts."""

    config: str
    model: str
    labels: dict[str, int]  # A, S, E, C
    joint: Count
    consistent: Count
    by_rule: dict[str, Count]


@dataclass(frozen=True, slots=True)
class BesideResults:
    """What ``--with-results FILE`` shows: where it came from, its rows and its comparisons."""

    path: str  # as given, relative to the project root
    command: str
    cases: int
    resamples: int
    rows: tuple[BesideRow, ...]
    comparisons: tuple[Comparison, ...]  # as that run's bootstrap gave them (values rounded in its JSON)

    @property
    def case_sets(self) -> str:
        return case_sets(self.command)


def case_sets(command: str) -> str:
    """The case folders or files an ``auditflow eval`` command ran: its positional arguments."""
    args = shlex.split(command)[2:]
    return " ".join(args[: next((i for i, a in enumerate(args) if a.startswith("--")), len(args))])


def _count(tally: dict[str, Any]) -> Count:
    return Count(int(tally["labels"]["A"]), int(tally["n"]))


def _row(config: dict[str, Any], metrics: dict[str, Any]) -> BesideRow:
    m = metrics[config["name"]]
    return BesideRow(config["name"], config["model"], {k: int(v) for k, v in m["labels"].items()},
                     Count(int(m["labels"]["A"]), int(m["n"])), _count(m["by_expected_decision"]["consistent"]),
                     {rule: _count(t) for rule, t in m["by_rule"].items()})


def _comparison(c: dict[str, Any]) -> Comparison:
    return Comparison(c["reference"], c["other"], BootstrapResult(
        int(c["n"]), float(c["reference_joint_acc"]), float(c["other_joint_acc"]), float(c["difference"]),
        float(c["ci_low"]), float(c["ci_high"]), float(c["p_value"]), int(c["resamples"]), int(c["seed"])))


def load_beside(path: Path, shown: str) -> BesideResults:
    """Read another evaluation's ``results.json`` (``shown``: its name in the report).

    :raises AuditflowError: the file cannot be read, is not JSON, or is not an ``auditflow eval``
        results document of this format.
    """
    what = "give the results.json an `auditflow eval --out DIR` wrote"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AuditflowError(f"{shown}: cannot read the results file ({exc.strerror}); {what}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AuditflowError(f"{shown}: not a JSON document ({exc}); {what}") from None
    if not isinstance(doc, dict) or doc.get("auditflow_eval") != FORMAT:
        raise AuditflowError(f"{shown}: not an auditflow eval results document of format {FORMAT}; {what}")
    try:
        return BesideResults(shown, str(doc["command"]), len(doc["cases"]), int(doc["bootstrap_resamples"]),
                             tuple(_row(c, doc["metrics"]) for c in doc["configs"]),
                             tuple(_comparison(c) for c in doc["comparisons"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AuditflowError(f"{shown}: the results document lacks or garbles {exc}; {what} "
                             "(written by this version)") from None
