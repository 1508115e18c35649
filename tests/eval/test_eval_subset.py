"""Rows on a stratified subset (``+subset=N``): the same cases on every machine, the corpus's make-up kept,
and compared with the full row on the cases both ran."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from auditflow.cases.settings import RunSettings
from auditflow.errors import AuditflowError
from auditflow.eval.collect import collect_cases
from auditflow.eval.plan import EvalConfig, parse_configs
from auditflow.eval.records import Redactor
from auditflow.eval.runner import run_eval
from auditflow.eval.subset import stratified_subset, stratum


def _case(key: str, rule: str, decision: str, form: str):
    case = SimpleNamespace(rule=rule, expect=SimpleNamespace(decision=decision), query=SimpleNamespace(form=form))
    return SimpleNamespace(key=key, case=case)


def _corpus():
    """120 cases in uneven strata: 0015 has 60 (40 text violations), the others 30 each."""
    out, i = [], 0
    for rule, decision, form, n in [("0015", "violation", "text", 40), ("0015", "consistent", "finmr", 20),
                                    ("0117", "violation", "finmr", 18), ("0117", "consistent", "text", 12),
                                    ("0126", "violation", "text", 15), ("0126", "consistent", "finmr", 15)]:
        for _ in range(n):
            out.append(_case(f"f{i % 7}.case.yaml::c{i:03d}", rule, decision, form))
            i += 1
    return out


def test_the_subset_keeps_the_make_up_and_its_size():
    cases = _corpus()
    keep = stratified_subset(cases, 60)
    assert len(keep) == 60
    got = Counter(stratum(kc) for kc in cases if kc.key in keep)
    assert got == {("0015", "violation", "text"): 20, ("0015", "consistent", "finmr"): 10,
                   ("0117", "violation", "finmr"): 9, ("0117", "consistent", "text"): 6,
                   ("0126", "violation", "text"): 7, ("0126", "consistent", "finmr"): 8}  # 7.5 each, same size: by name


def test_the_subset_does_not_depend_on_the_order_of_the_cases_and_smaller_ones_nest():
    cases = _corpus()
    keep = stratified_subset(cases, 60)
    assert stratified_subset(list(reversed(cases)), 60) == keep
    assert stratified_subset(cases, 30) <= keep
    assert stratified_subset(cases, 500) == {kc.key for kc in cases}


def test_a_row_names_its_subset_and_a_bad_size_is_a_usage_error():
    assert parse_configs("full+shuffle=1+subset=60", model="local:m") == (
        EvalConfig("full+shuffle=1+subset=60", "full", "local:m", shuffle=1, subset=60),)
    for bad in ("full+subset=0", "full+subset=", "full+subset=x"):
        with pytest.raises(AuditflowError, match=r"\+subset=CASES"):
            parse_configs(bad, model="local:m")


def test_a_subset_row_runs_only_its_cases_and_is_compared_on_them(case_dir: Path):
    from auditflow.eval.report import build_report

    cases = collect_cases([case_dir], display=lambda p: p.name)
    configs = parse_configs("policy,no-checks+subset=1", model="policy")
    configs = (configs[0], replace(configs[1], model="policy"))
    run = run_eval(cases.cases, configs, RunSettings(), jobs=2, redact=Redactor())
    assert len(run.records["policy"]) == 3 and len(run.records["no-checks+subset=1"]) == 1
    only = run.records["no-checks+subset=1"][0].key
    assert {t.key for t in run.timings if t.config == "no-checks+subset=1"} == {only}
    report = build_report(run, cases, configs, command="auditflow eval x", seed=0, resamples=50)
    (comparison,) = report.comparisons
    assert comparison.result.n == 1
    assert report.metrics["no-checks+subset=1"].n == 1 and report.metrics["policy"].n == 3


def test_progress_counts_a_subset_row_against_its_own_cases(case_dir: Path, tmp_path: Path, capsys):
    from auditflow.cli.main import main

    assert main(["eval", str(case_dir), "--configs", "policy,no-checks+subset=1", "--model", "policy", "--out",
                 str(tmp_path), "--bootstrap", "20", "--no-charts"]) == 0
    err = capsys.readouterr().err
    assert "no-checks+subset=1 1/1 " in err and "policy 3/3 " in err
