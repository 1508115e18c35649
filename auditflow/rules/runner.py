"""Run the selected DQC rules on one environment.

Which rules exist, what each needs and how it runs come from the registry
(:mod:`auditflow.rules.registry`); this module only runs a selection and times each rule. A rule
that cannot run (no data root, a broken resource) says so in its result instead of pretending the
filing passed; a rule registered with a ``cannot_run`` reason (it needs material we do not have) is
never called and is reported as not run, with that reason.

Each finding leaves here dressed for the filer's outputs (docs/check-log.md): its severity is the
level the rule's entry gives its code, and it carries the concept's standard label and the document
and source line of its fact. None of that changes what a rule decided or what the auditors' tools
show (they read codes, values and evidence).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from auditflow.graphs.environment import AuditEnvironment
from auditflow.rules import registry
from auditflow.rules.finding import CheckRecord, Outcome, RuleResult
from auditflow.rules.labels import standard_labels
from auditflow.rules.resources import Resources
from auditflow.xbrl.gc_pause import collector_paused
from auditflow.xbrl.model import Warning_

RULES: tuple[str, ...] = registry.rule_ids()
NOT_RUN = "not run"  # how a rule with a cannot_run reason is reported, before the reason


def parse_rules(text: str) -> tuple[str, ...]:
    """``"15,0117"`` -> ``("0015", "0117")``; ranges (``4-9``) and ``all`` too (see the registry)."""
    return registry.parse_rules(text)


@dataclass
class CheckReport:
    """The results of the rules run on one filing, with the load's warnings and each rule's time.

    ``warnings`` are the load's warnings as text (what the JSON lists); ``load_warnings`` the same
    warnings as recorded, with the document and line the log names. ``not_run`` maps each selected
    rule that cannot run on our material to its reason (its result is one not-applicable record).
    """

    filing: str
    results: dict[str, RuleResult] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)  # kept out of comparisons
    load_warnings: list[Warning_] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)

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
            "not_run": dict(self.not_run),
            "warnings": self.warnings + [w for r in self.results.values() for w in r.warnings],
        }


def not_run_result(spec: registry.RuleSpec) -> RuleResult:
    """The result of a rule that cannot run on our material: one record that says so and why."""
    return RuleResult(spec.id, checks=(CheckRecord(spec.id, Outcome.NOT_APPLICABLE,
                                                   reason=f"{NOT_RUN}: {spec.cannot_run}"),))


def run_rules(env: AuditEnvironment, rules=RULES, *, data_root: Path | None) -> CheckReport:
    """Run ``rules`` (ids, in the order given) through their registered ``run(env, resources)``, with
    the cyclic collector paused (the rules make no reference cycles; see auditflow.xbrl.gc_pause).
    A rule with a ``cannot_run`` reason is not called."""
    report = CheckReport(env.filing.source, warnings=[str(w) for w in env.warnings],
                         load_warnings=list(env.warnings))
    resources = Resources(Path(data_root) if data_root is not None else None)
    with collector_paused():
        for rule in rules:
            spec = registry.get(rule)
            if spec.cannot_run:
                report.results[spec.id] = not_run_result(spec)
                report.not_run[spec.id] = spec.cannot_run
                continue
            t = time.perf_counter()
            report.results[spec.id] = spec.run(env, resources)
            report.timings[spec.id] = time.perf_counter() - t
        _dress(env, report)
    return report


def _dress(env: AuditEnvironment, report: CheckReport) -> None:
    """Give every finding its severity, its concept's label and its fact's document and line."""
    findings = report.findings
    if not findings:
        return
    labels = standard_labels(env, (f.concept for f in findings))
    keys = {f.fact_id for f in findings if f.fact_id is not None}
    facts: dict = {}
    for fact in env.filing.facts:  # the first fact of a key, as Filing.fact_by_key finds it
        if fact.key in keys:
            facts.setdefault(fact.key, fact)
    for rule, result in report.results.items():
        if not result.findings:
            continue
        spec = registry.get(rule)
        dressed = []
        for f in result.findings:
            fact = facts.get(f.fact_id) if f.fact_id is not None else None
            dressed.append(replace(f, severity=spec.level_of(f.code).value, label=labels.get(f.concept),
                                   document=(fact.document or None) if fact is not None else None,
                                   line=fact.line if fact is not None else None))
        report.results[rule] = replace(result, findings=tuple(dressed))
