"""``auditflow eval`` finds the settings ``pytest --auditflow`` uses, so it replays the same cache."""
from __future__ import annotations

from pathlib import Path

import pytest

from auditflow.eval.collect import case_files
from auditflow.eval.defaults import DEFAULT_CACHE_DIR, find_project
from auditflow.errors import AuditflowError

REPO = Path(__file__).resolve().parents[2]


def test_this_repository_is_found_from_its_cases() -> None:
    project = find_project([REPO / "cases"], cwd=Path("/"))
    assert project.rootdir == REPO and project.inifile == REPO / "pyproject.toml"
    assert project.cache_dir(None) == REPO / "cases" / "llm-cache"  # this repository's ini sets it
    assert project.display(REPO / "cases" / "acme-sample.case.yaml") == "cases/acme-sample.case.yaml"


def test_pyproject_ini_values_are_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\nauditflow = true\n'
                                             'auditflow_model = "local:qwen2.5-coder-1.5b"\n'
                                             'auditflow_cache_dir = "recorded/llm"\n')
    (tmp_path / "cases").mkdir()
    project = find_project([tmp_path / "cases"])
    assert project.model(None) == "local:qwen2.5-coder-1.5b" and project.model("policy") == "policy"
    assert project.cache_dir(None) == (tmp_path / "recorded" / "llm").resolve()
    assert project.cache_dir(str(tmp_path / "x")) == (tmp_path / "x").resolve()


def test_the_nearest_pytest_ini_wins_and_other_ini_files_need_their_section(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nauditflow_model = openai:gpt-4o\n")
    inner = tmp_path / "sub"
    inner.mkdir()
    (inner / "tox.ini").write_text("[tox]\nenvlist = py311\n")  # no [pytest]: not pytest's file
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")  # no [tool.pytest...]: neither
    project = find_project([inner])
    assert project.rootdir == tmp_path and project.model(None) == "openai:gpt-4o"
    assert project.cache_dir(None) == (tmp_path / DEFAULT_CACHE_DIR).resolve()


def test_no_ini_file_means_the_current_folder(tmp_path: Path) -> None:
    project = find_project([], cwd=tmp_path)
    assert (project.rootdir, project.inifile, project.model(None)) == (tmp_path, None, "policy")


def test_an_explicit_data_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(AuditflowError, match="--data-root"):
        find_project([], cwd=tmp_path).data_root(str(tmp_path / "missing"))


def test_constants_agree_with_their_sources() -> None:
    """The CLI names some values instead of importing heavy modules; they must not drift."""
    from auditflow.cases.models import POLICY, RECORD_MODES
    from auditflow.cli import eval_cmd
    from auditflow.bootstrap import DEFAULT_RESAMPLES
    from auditflow.eval.plan import CONFIG_NAMES
    from auditflow.llm.concurrency import DEFAULT_MAX_CONCURRENCY
    from pytest_auditflow.options import DEFAULT_CACHE_DIR as PLUGIN_CACHE_DIR

    assert DEFAULT_CACHE_DIR == PLUGIN_CACHE_DIR
    assert set(eval_cmd.CONFIG_NAMES) == set(CONFIG_NAMES) and eval_cmd.RECORD_MODES == RECORD_MODES
    assert (eval_cmd.POLICY, eval_cmd.DEFAULT_RESAMPLES, eval_cmd.DEFAULT_JOBS) == (
        POLICY, DEFAULT_RESAMPLES, DEFAULT_MAX_CONCURRENCY)


def test_case_folders_are_walked_like_pytest(tmp_path: Path) -> None:
    for rel in ("a.case.yaml", "deep/b.case.yml", "c.yaml", ".hidden/d.case.yaml", "build/e.case.yaml",
                "other.yaml"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("auditflow: 1\ncases: []\n" if rel == "c.yaml" else "x: 1\n")
    assert [p.relative_to(tmp_path).as_posix() for p in case_files([tmp_path])] == [
        "a.case.yaml", "c.yaml", "deep/b.case.yml"]
    with pytest.raises(AuditflowError, match="is not a case file"):
        case_files([tmp_path / "other.yaml"])
