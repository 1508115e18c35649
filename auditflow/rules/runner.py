"""Run the selected DQC rules on one environment.

Which rules exist, what each needs and how it runs come from the registry
(:mod:`auditflow.rules.registry`); this module only runs a selection and times each rule. A rule
that cannot run (no data root, a broken resource) says so in its result instead of pretending the
filing passed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules import registry
from auditflow.rules.finding import RuleResult
from auditflow.rules.resources import Resources
from auditflow.xbrl.gc_pause import collector_paused

RULES: tuple[str, ...] = registry.rule_ids()


def parse_rules(text: str) -> tuple[str, ...]:
    """``"15,0117"`` -> ``("0015", "0117")``; ranges (``4-9``) and ``all`` too (see the registry)."""
    return registry.parse_rules(text)


@dataclass
class CheckReport:
    """The results of the rules run on one filing, with the load's warnings and each rule's time."""

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
    """Run ``rules`` (ids, in the order given) through their registered ``run(env, resources)``, with
    the cyclic collector paused (the rules make no reference cycles; see auditflow.xbrl.gc_pause)."""
    report = CheckReport(env.filing.source, warnings=[str(w) for w in env.warnings])
    resources = Resources(Path(data_root) if data_root is not None else None)
    with collector_paused():
        for rule in rules:
            spec = registry.get(rule)
            t = time.perf_counter()
            report.results[spec.id] = spec.run(env, resources)
            report.timings[spec.id] = time.perf_counter() - t
    return report
