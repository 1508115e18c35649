"""``--auditflow-subset N``: pytest keeps the very cases an ``auditflow eval`` row with ``+subset=N`` runs over
the same case files, and deselects the other audit cases; other items are left alone."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditflow.eval.collect import collect_cases
from auditflow.eval.defaults import find_project
from auditflow.eval.plan import parse_configs
from auditflow.eval.runner import row_cases
from tests.plugin.plugin_cases import ASSETS_OK, ASSETS_WRONG, RECEIVABLE_OK, REVENUE_OK, case_file

REPO = Path(__file__).resolve().parents[2]
HARD = REPO / "cases" / "hard"


def _eval_keys(folder: Path, size: int, data_root: Path | None) -> list[str]:
    """The keys eval's ``full+subset=<size>`` row runs over ``folder``."""
    project = find_project([folder])
    cases = collect_cases([folder], display=project.display).cases
    (config,) = parse_configs(f"full+subset={size}", model="policy")
    return sorted(kc.key for kc in row_cases(cases, config, data_root=data_root))


@pytest.mark.parametrize("size", [60, 7])
def test_the_kept_cases_are_the_ones_evals_subset_row_runs(data_root: Path, size: int) -> None:
    env = {**os.environ, "AUDITFLOW_DATA_ROOT": str(data_root)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--auditflow", "cases/hard", "--auditflow-model=policy",
                           f"--auditflow-subset={size}", "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    kept = sorted(line for line in proc.stdout.splitlines() if "::" in line)
    total = len(collect_cases([HARD], display=str).cases)
    assert f"{size}/{total} tests collected ({total - size} deselected)" in proc.stdout
    assert kept == _eval_keys(HARD, size, data_root)


def test_the_subset_is_drawn_before_k_and_other_items_are_kept(pytester: pytest.Pytester, af_args,
                                                               data_root: Path) -> None:
    pytester.makefile(".case.yaml", a=case_file(ASSETS_OK, ASSETS_WRONG, REVENUE_OK, RECEIVABLE_OK))
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    keys = _eval_keys(pytester.path, 2, data_root)
    result = pytester.runpytest(*af_args, "--auditflow-subset=2", "--collect-only", "-q")
    kept = sorted(line for line in result.stdout.lines if "::" in line)
    assert kept == sorted([*keys, "test_plain.py::test_plain"])
    result.stdout.fnmatch_lines(["3/5 tests collected (2 deselected)*"])
    # -k narrows the subset the whole files give; it does not draw another one from what it selected
    one = keys[0].split("::")[1]
    picked = pytester.runpytest(*af_args, "--auditflow-subset=2", "-k", one, "--collect-only", "-q")
    assert sorted(line for line in picked.stdout.lines if "::" in line) == [keys[0]]


def test_a_size_above_the_number_of_cases_keeps_them_all(pytester: pytest.Pytester, af_args) -> None:
    pytester.makefile(".case.yaml", a=case_file(ASSETS_OK, REVENUE_OK, RECEIVABLE_OK))
    result = pytester.runpytest(*af_args, "--auditflow-subset=10")
    result.assert_outcomes(passed=3)
    assert "deselected" not in result.stdout.str()


def test_the_ini_key_sets_it_and_runs_show_the_deselected_count(pytester: pytest.Pytester, af_args) -> None:
    pytester.makeini("[pytest]\nauditflow_subset = 1\n")
    pytester.makefile(".case.yaml", a=case_file(ASSETS_OK, REVENUE_OK, RECEIVABLE_OK))
    pytester.runpytest(*af_args).assert_outcomes(passed=1, deselected=2)


@pytest.mark.parametrize("bad", ["0", "x", "-3", "1.5", "ten"])
def test_a_bad_size_is_a_usage_error(pytester: pytest.Pytester, af_args, bad: str) -> None:
    pytester.makefile(".case.yaml", a=case_file(ASSETS_OK))
    result = pytester.runpytest(*af_args, f"--auditflow-subset={bad}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--auditflow-subset / ini auditflow_subset must be a whole number of at least 1*"
                                 f"got '{bad}'"])


def test_a_case_that_cannot_run_here_is_left_out_as_eval_leaves_it_out(pytester: pytest.Pytester,
                                                                      monkeypatch) -> None:
    """Without a data root a case that ``requires: [data_root]`` is skipped by a plain run; eval draws its
    subsets from the runnable cases only, and so does the option: the case is deselected, not skipped."""
    import auditflow.dataroot

    nowhere = pytester.path / "no-data-root"
    monkeypatch.delenv("AUDITFLOW_DATA_ROOT", raising=False)
    monkeypatch.setattr(auditflow.dataroot, "repo_data_root", lambda: nowhere)  # the checkout's ../shared/data
    monkeypatch.setattr(auditflow.dataroot, "user_cache_data_root", lambda: nowhere)
    needs_root = RECEIVABLE_OK.replace("    query:", "    requires: [data_root]\n    query:", 1)
    pytester.makefile(".case.yaml", a=case_file(ASSETS_OK, REVENUE_OK, needs_root))
    plain = pytester.runpytest("--auditflow")
    if "data root none" not in plain.stdout.str():
        pytest.skip("a data root is found beside the temporary folder")
    plain.assert_outcomes(passed=2, skipped=1)
    assert _eval_keys(pytester.path, 10, None) == ["a.case.yaml::assets-calc", "a.case.yaml::revenue-members"]
    pytester.runpytest("--auditflow", "--auditflow-subset=10").assert_outcomes(passed=2, deselected=1)
