"""Run the selected DQC rule families on one environment.

The three rules differ in what they need: 0015 needs only facts and the year's concept list; 0117
and 0126 need the filer's linkbases. Without a data root (a fresh machine) 0015 cannot run, and the
result says so instead of pretending the filing passed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from auditflow.errors import AuditflowError
from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules.finding import CheckRecord, Outcome, RuleResult

RULES = ("0015", "0117", "0126")


def parse_rules(text: str) -> tuple[str, ...]:
    """``"15,0117"`` -> ``("0015", "0117")``; unknown families are an error naming the valid ones."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        code = part.upper().removeprefix("DQC.US.").zfill(4)
        if code not in RULES:
            raise AuditflowError(f"unknown rule {part!r}; choose from {', '.join(RULES)}")
        out.append(code)
    return tuple(dict.fromkeys(out))


@dataclass
class CheckReport:
    filing: str
    results: dict[str, RuleResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # kept out of comparisons

    @property
    def findings(self):
        return [f for r in self.results.values() for f in r.findings]

    def to_json(self) -> dict:
        return {
            "filing": self.filing,
            "findings": [f.to_json() for f in self.findings],
            "checked": {k: r.checked for k, r in self.results.items()},
            "consistent": {k: r.consistent for k, r in self.results.items()},
            "not_applicable": {k: r.not_applicable for k, r in self.results.items()},
            "warnings": self.warnings + [w for r in self.results.values() for w in r.warnings],
        }


def run_rules(env: AuditEnvironment, rules=RULES, *, data_root: Path | None) -> CheckReport:
    from auditflow.rules.dqc_0015 import rule_0015
    from auditflow.rules.dqc_0117 import rule_0117
    from auditflow.rules.dqc_0126 import rule_0126

    report = CheckReport(env.filing.source, warnings=[str(w) for w in env.warnings])
    for rule in rules:
        t = time.perf_counter()
        if rule == "0015":
            if data_root is None:
                report.results[rule] = RuleResult(rule, checks=(CheckRecord(rule, Outcome.NOT_APPLICABLE, reason="no data root: the DQC 0015 concept list is unavailable"),),
                                                  warnings=("DQC 0015 not run: its concept list lives in the data root; pass --data-root or set AUDITFLOW_DATA_ROOT",))
            else:
                report.results[rule] = rule_0015(env.filing, data_root=data_root)
        elif rule == "0117":
            report.results[rule] = rule_0117(env, data_root=data_root)
        else:
            report.results[rule] = rule_0126(env, data_root=data_root)
        report.timings[rule] = time.perf_counter() - t
    return report
