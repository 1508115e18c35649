"""The data root is found the same way whatever the install (issue 17, item 1).

After ``pip install .`` the package lives in site-packages, so ``../shared/data`` next to the imported
module leads nowhere; the data root must still be found beside the project folder (pytest's rootdir)
or the current folder. These tests put the module "elsewhere" by pointing ``repo_data_root`` at a
folder that does not exist, as a non-editable install does; ``tests/plugin/test_plugin_wheel.py``
checks the same with a real wheel in a fresh virtual environment.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from auditflow import dataroot
from auditflow.dataroot import ENV_VAR, data_root_or_none, resolve_data_root, shared_data_beside


@pytest.fixture
def installed_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder ``work/project`` with ``work/shared/data`` beside it; the package is not in it."""
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(dataroot, "repo_data_root", lambda: tmp_path / "site-packages" / "shared" / "data")
    monkeypatch.setattr(dataroot, "user_cache_data_root", lambda: tmp_path / "no-cache")
    for part in ("dqc", "filings"):  # what audit cases read: a data root without them is a usage error
        (tmp_path / "work" / "shared" / "data" / part).mkdir(parents=True)
    project = tmp_path / "work" / "project"
    (project / "cases" / "deep").mkdir(parents=True)
    return project


def test_found_beside_the_current_folder_or_a_parent(installed_elsewhere: Path, monkeypatch) -> None:
    want = (installed_elsewhere.parent / "shared" / "data").resolve()
    monkeypatch.chdir(installed_elsewhere / "cases" / "deep")
    assert resolve_data_root() == want
    assert shared_data_beside() == want


def test_found_beside_the_given_project_folder(installed_elsewhere: Path, monkeypatch, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert data_root_or_none() is None
    assert resolve_data_root(start=installed_elsewhere) == (installed_elsewhere.parent / "shared" / "data").resolve()


def test_the_message_names_where_it_was_looked_for(installed_elsewhere: Path, monkeypatch, tmp_path: Path) -> None:
    shutil.rmtree(installed_elsewhere.parent / "shared" / "data")
    monkeypatch.chdir(installed_elsewhere)
    with pytest.raises(Exception) as exc:
        resolve_data_root()
    assert "shared/data beside" in str(exc.value) and "../shared/data beside the project folder" in str(exc.value)


def test_the_plugin_finds_it_beside_the_rootdir(installed_elsewhere: Path, pytester: pytest.Pytester, monkeypatch) -> None:
    """``pytest --auditflow`` run from inside the project, as after ``pip install .`` and the README's command."""
    (installed_elsewhere / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    monkeypatch.chdir(installed_elsewhere / "cases")
    result = pytester.runpytest("--auditflow", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning")
    result.stdout.fnmatch_lines([f"auditflow: *data root {(installed_elsewhere.parent / 'shared' / 'data').resolve()}*"])
