"""The eval runner: order independent of threads, skips like the plugin, a crash stays one case's."""
from __future__ import annotations

import random
import time

import pytest
from dataclasses import replace
from pathlib import Path

from auditflow.cases.settings import RunSettings
from auditflow.eval.collect import collect_cases
from auditflow.eval.plan import parse_configs, reference_config
from auditflow.eval.records import Redactor
from auditflow.eval.runner import NEEDS_DATA_ROOT, run_eval


def _cases(case_dir: Path):
    return collect_cases([case_dir], display=lambda p: p.name).cases


def test_records_do_not_depend_on_which_thread_finishes_first(case_dir: Path) -> None:
    from auditflow.cases.runner import run_case

    def slow_run(case, settings):
        time.sleep(random.random() / 20)
        return run_case(case, settings)

    configs = parse_configs("policy,no-gating", model="policy")
    base = RunSettings()
    serial = run_eval(_cases(case_dir), configs, base, jobs=1, redact=Redactor())
    shuffled = run_eval(_cases(case_dir), configs, base, jobs=6, redact=Redactor(), run_one=slow_run)
    assert serial.records == shuffled.records
    assert [r.key for r in serial.records["policy"]] == ["sample.case.yaml::assets-calc",
                                                         "sample.case.yaml::assets-corrected",
                                                         "sample.case.yaml::revenue-members"]
    assert [(t.config, t.key) for t in shuffled.timings] == [(t.config, t.key) for t in serial.timings]


def test_a_crash_is_recorded_for_its_case_only(case_dir: Path) -> None:
    from auditflow.cases.runner import run_case

    def flaky(case, settings):
        if case.id == "assets-corrected":
            raise RuntimeError("bug in /somewhere/secret")
        return run_case(case, settings)

    run = run_eval(_cases(case_dir), parse_configs("policy", model="policy"), RunSettings(), jobs=2,
                   redact=Redactor.of(rootdir="/somewhere"), run_one=flaky)
    labels = {r.key.split("::")[1]: (r.label, r.error_kind) for r in run.records["policy"]}
    assert labels == {"assets-calc": ("A", None), "assets-corrected": ("S", "crash"), "revenue-members": ("A", None)}
    crashed = run.records["policy"][1]
    assert crashed.error == "RuntimeError: bug in <rootdir>/secret"
    assert "RuntimeError" in run.tracebacks[("policy", crashed.key)] and len(run.timings) == 2


def test_cases_that_need_the_data_root_are_skipped_without_one(case_dir: Path) -> None:
    text = (case_dir / "sample.case.yaml").read_text()
    (case_dir / "sample.case.yaml").write_text(text.replace("  - id: revenue-members\n",
                                                            "  - id: revenue-members\n    requires: [data_root]\n"))
    seen = []
    run = run_eval(_cases(case_dir), parse_configs("policy", model="policy"), replace(RunSettings(), data_root=None),
                   jobs=2, redact=Redactor(), on_done=lambda c, r: seen.append((c, r.key)))
    assert [s.key for s in run.skipped] == ["sample.case.yaml::revenue-members"]
    assert run.skipped[0].reason == NEEDS_DATA_ROOT
    assert len(run.records["policy"]) == 2 and len(seen) == 2


def test_configurations() -> None:
    configs = parse_configs("no-checks, policy,full,policy", model="local:qwen2.5-coder-1.5b")
    assert [(c.name, c.protocol, c.model) for c in configs] == [
        ("no-checks", "no-checks", "local:qwen2.5-coder-1.5b"), ("policy", "full", "policy"),
        ("full", "full", "local:qwen2.5-coder-1.5b")]
    assert reference_config(configs) == "full" and reference_config(configs[:2]) == "no-checks"


def test_a_report_with_no_case_run_still_renders(case_dir: Path) -> None:
    from auditflow.eval.markdown import render_markdown
    from auditflow.eval.report import build_report

    text = (case_dir / "sample.case.yaml").read_text()  # every case needs the data root, and there is none
    (case_dir / "sample.case.yaml").write_text(text.replace("  filing:", "  requires: [data_root]\n  filing:"))
    cases = collect_cases([case_dir], display=lambda p: p.name)
    configs = parse_configs("policy,no-checks", model="policy")
    run = run_eval(cases.cases, configs, replace(RunSettings(), data_root=None), jobs=1, redact=Redactor())
    md = render_markdown(build_report(run, cases, configs, command="auditflow eval x", seed=0, resamples=10))
    assert "**Cases:** none ran, from 1 case file." in md and "No case ran: nothing to compare." in md
    assert md.count("needs the AuditFlow data root") == 3


def test_a_row_may_vary_the_model_the_profile_and_the_order():
    from auditflow.errors import AuditflowError
    from auditflow.eval.plan import EvalConfig, parse_configs

    rows = parse_configs("full,full@local:qwen2.5-coder-0.5b,full+prompts=plain,full+shuffle=1,policy", model="local:m")
    assert rows == (EvalConfig("full", "full", "local:m"),
                    EvalConfig("full@local:qwen2.5-coder-0.5b", "full", "local:qwen2.5-coder-0.5b"),
                    EvalConfig("full+prompts=plain", "full", "local:m", prompts="plain"),
                    EvalConfig("full+shuffle=1", "full", "local:m", shuffle=1),
                    EvalConfig("policy", "full", "policy"))
    with pytest.raises(AuditflowError, match="none of"):
        parse_configs("full+shuffle=x", model="local:m")
