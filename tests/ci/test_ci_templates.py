"""The ``ci/`` templates as a new team uses them: copied into a fresh repository, their shell steps run.

Issue 44: the templates installed ``pytest-auditflow[test]==0.1.0`` from the package index, which holds
no such distribution, so a copied workflow failed at its install step. They now install from the
AuditFlow repository named by ``AUDITFLOW_SOURCE`` (ci/README.md). Here:

* the fast tests read the files: every install names the source, both jobs pin the same tag of the
  repository pyproject names, the data-root policy is the documented one, the repository settings
  the re-record job needs are stated;
* the slow tests copy ``ci/`` into a new git repository (a copy of the sample filing, the sample
  cases and their recorded LLM calls), make a fresh virtual environment for each job, and run each
  workflow's steps in order (tests/ci/workflow_runner.py: ``run:`` steps as bash, ``uses:`` steps by a
  stand-in). ``AUDITFLOW_SOURCE`` is replaced by a clone of this checkout's committed HEAD, tagged as
  the release the templates pin, so the install really is pip's ``git+`` direct reference at a tag;
  the dependencies come from the package index pip is configured with. A template that went back to
  the index would fail here twice: pip finds no such distribution, and the installed distribution's
  ``direct_url.json`` must name the source.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.ci.workflow_runner import Runner, StepResult

REPO = Path(__file__).resolve().parents[2]
CI = REPO / "ci"
WORKFLOWS = CI / "github"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PROJECT["version"]
SOURCE = f"git+{PROJECT['urls']['Repository']}@v{VERSION}"
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
CACHE = REPO / "cases" / "llm-cache"
PIP_INSTALL = re.compile(r"pip install[^\n]*")
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _job(name: str) -> dict:
    (job,) = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))["jobs"].values()
    return job


def _step(job: dict, name: str) -> dict:
    return next(s for s in job["steps"] if s.get("name") == name)


# ---------------------------------------------------------------- the files, read


def test_every_install_names_the_source() -> None:
    """No pip command in ci/ installs AuditFlow from the index; each one names ``AUDITFLOW_SOURCE``
    or, in a comment showing the form, a git URL of the repository at a tag."""
    seen = 0
    for path in sorted(p for p in CI.rglob("*") if p.is_file()):
        for line in PIP_INSTALL.findall(path.read_text(encoding="utf-8")):
            if "pytest-auditflow" not in line:
                continue
            seen += 1
            reference = re.search(r"pytest-auditflow(\[[a-z,]+\])? @ (\S+?)[\"'`]", line)
            assert reference, f"{path.relative_to(REPO)}: {line!r} installs pytest-auditflow from the index"
            assert reference.group(2) in ("${AUDITFLOW_SOURCE}", SOURCE), f"{path.relative_to(REPO)}: {line!r}"
    assert seen >= 3  # the two jobs' installs and the form shown in ci/README.md


def test_both_jobs_pin_this_release_of_the_project_repository() -> None:
    for name in ("auditflow-pr.yml", "auditflow-rerecord.yml"):
        assert _job(name)["env"]["AUDITFLOW_SOURCE"] == SOURCE, f"ci/github/{name}: pin {SOURCE} (pyproject's Repository)"


def test_the_data_root_is_optional_for_replay_and_required_for_the_baseline() -> None:
    """ci/README.md "The data root": a miss skips cases in the pull-request job (as everywhere else),
    and stops the re-record job, whose baseline must hold every case."""
    restore = _step(_job("auditflow-pr.yml"), "Data root")
    assert not restore["with"].get("fail-on-cache-miss"), "the pull-request job skips, it does not fail, without a data root"
    assert _step(_job("auditflow-rerecord.yml"), "Data root")["with"]["fail-on-cache-miss"] is True
    readme = (CI / "README.md").read_text(encoding="utf-8")
    assert "**Pull-request job: optional.**" in readme and "**Re-record job: required**" in readme


def test_the_settings_the_rerecord_job_needs_are_stated() -> None:
    setting = "Allow GitHub Actions to create and approve pull requests"
    doc = yaml.safe_load((WORKFLOWS / "auditflow-rerecord.yml").read_text(encoding="utf-8"))
    assert doc["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert setting in (WORKFLOWS / "auditflow-rerecord.yml").read_text(encoding="utf-8")
    assert setting in (CI / "README.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------- the jobs, run


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False, **kwargs)


def _git(repo: Path, *args: str) -> str:
    done = _run(["git", "-C", str(repo), *args], env={**os.environ, **GIT_IDENTITY})
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> str:
    """``git+file://`` of a clone of this checkout's HEAD, tagged ``v<version>``: what AUDITFLOW_SOURCE
    names on GitHub, here on disk (committed work only, as a tag would hold)."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the templates install AuditFlow from a git repository")
    clone = tmp_path_factory.mktemp("source") / "auditflow"
    _git(REPO, "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone))
    _git(clone, "tag", "--force", f"v{VERSION}")
    return f"git+{clone.as_uri()}@v{VERSION}"


def _venv(where: Path) -> Path:
    """A new virtual environment of this Python (what actions/setup-python gives a job)."""
    made = _run([sys.executable, "-m", "venv", str(where)])
    assert made.returncode == 0, made.stderr
    return where


def _base_env(venv: Path, home: Path) -> dict[str, str]:
    """A runner's environment: the venv first on PATH, a new home (no ~/.cache/auditflow data root
    or model), none of this session's AuditFlow or pytest settings; pip keeps its configuration and its
    download cache (only so that the same wheels are not fetched again)."""
    pip_cache = _run([sys.executable, "-m", "pip", "cache", "dir"]).stdout.strip()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AUDITFLOW_", "PYTEST_")) and k not in ("PYTHONPATH", "VIRTUAL_ENV", "COLUMNS")}
    home.mkdir(parents=True, exist_ok=True)
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(home), COLUMNS="200", **GIT_IDENTITY)
    if pip_cache:
        env["PIP_CACHE_DIR"] = pip_cache
    if "AUDITFLOW_CACHE_DIR" in os.environ:  # the taxonomy graph built once for this session, not again
        env["AUDITFLOW_CACHE_DIR"] = os.environ["AUDITFLOW_CACHE_DIR"]
    return env


def _team_repository(work: Path) -> Path:
    """``work/team``: a new git repository with the sample filing, the sample cases (one of them needs the
    data root), their recorded LLM calls, a pyproject naming the model and cache, and ``ci/`` copied
    where ci/README.md says (run-cases.sh at ci/, the workflows at .github/workflows/)."""
    repo = work / "team"
    shutil.copytree(SAMPLE, repo / "filings" / "acme-10k-2024" / "xml")
    (repo / "cases").mkdir()
    text = (REPO / "cases" / "acme-sample.case.yaml").read_text(encoding="utf-8")
    moved = text.replace("../auditflow/samples/acme-10k-2024/xml", "../filings/acme-10k-2024/xml")
    assert moved != text
    (repo / "cases" / "acme.case.yaml").write_text(moved, encoding="utf-8")
    cache = repo / "llm-cache"
    for manifest in (CACHE / "cases").glob("acme-*.json"):
        (cache / "cases").mkdir(parents=True, exist_ok=True)
        shutil.copy2(manifest, cache / "cases" / manifest.name)
        for key in yaml.safe_load(manifest.read_text(encoding="utf-8"))["keys"]:
            (cache / key[:2]).mkdir(exist_ok=True)
            shutil.copy2(CACHE / key[:2] / f"{key}.json", cache / key[:2] / f"{key}.json")
    (repo / "pyproject.toml").write_text("""\
[tool.pytest.ini_options]
auditflow_model = "local:qwen2.5-coder-1.5b"
auditflow_cache_dir = "llm-cache"
""", encoding="utf-8")
    shutil.copytree(CI, repo / "ci", ignore=shutil.ignore_patterns("github"))
    shutil.copytree(WORKFLOWS, repo / ".github" / "workflows")
    _git(repo.parent, "init", "--quiet", "-b", "main", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "-m", "cases and the AuditFlow CI templates")
    return repo


class Stand:
    """Stand-ins for the GitHub actions the templates use; ``data_root`` is the cache to restore, if any."""

    def __init__(self, data_root: Path | None) -> None:
        self.data_root = data_root
        self.pull_request: list[str] | None = None

    def checkout(self, step: dict, runner: Runner) -> None:
        assert (runner.repo / ".git").is_dir()  # the team's repository is the checkout

    def setup_python(self, step: dict, runner: Runner) -> None:
        """The fresh venv (of this Python) stands for it; the version it asks for must be one AuditFlow supports."""
        wanted = tuple(int(x) for x in str(step["with"]["python-version"]).split("."))
        assert PROJECT["requires-python"] == ">=3.11" and wanted >= (3, 11), step["with"]

    def restore(self, step: dict, runner: Runner) -> None:
        inputs = runner.with_inputs(step)
        if self.data_root is None:
            if inputs.get("fail-on-cache-miss") == "True":
                raise AssertionError("cache miss: the job stops here (fail-on-cache-miss)")
            return
        target = Path(inputs["path"])
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_symlink():  # restored by an earlier run of the job in the same place
            target.symlink_to(self.data_root, target_is_directory=True)

    def save(self, step: dict, runner: Runner) -> None:
        inputs = runner.with_inputs(step)
        assert Path(inputs["path"]).is_dir() and inputs["key"] == "auditflow-data-root-v1"

    def upload(self, step: dict, runner: Runner) -> None:
        for name in runner.with_inputs(step)["path"].split():
            assert (runner.repo / name).is_file(), f"the artifact step uploads {name}, which is missing"

    def create_pull_request(self, step: dict, runner: Runner) -> None:
        """What the action would commit: the changed files under ``add-paths``."""
        paths = runner.with_inputs(step)["add-paths"].split()
        status = _git(runner.repo, "status", "--porcelain", "--untracked-files=all", "--", *paths)
        self.pull_request = sorted(line[3:] for line in status.splitlines())

    def actions(self) -> dict:
        return {"actions/checkout": self.checkout, "actions/setup-python": self.setup_python,
                "actions/cache/restore": self.restore, "actions/cache/save": self.save,
                "actions/upload-artifact": self.upload, "peter-evans/create-pull-request": self.create_pull_request}


def _ran(results: list[StepResult], name: str) -> StepResult:
    (result,) = [r for r in results if r.name == name]
    assert result.ran and result.returncode == 0, f"step {name!r} failed:\n{result.output[-5000:]}"
    return result


def _installed_from(env: dict[str, str]) -> tuple[str, str]:
    """The installed pytest-auditflow's version and the URL its direct_url.json names (PEP 610)."""
    probe = _run(["python", "-c", "import importlib.metadata as m, json; d = m.distribution('pytest-auditflow'); "
                  "u = json.loads(d.read_text('direct_url.json') or '{}'); "
                  "print(d.version, u.get('url', 'index'), u.get('vcs_info', {}).get('requested_revision'))"],
                 env=env, cwd=env["HOME"])
    assert probe.returncode == 0, probe.stderr
    version, url, revision = probe.stdout.split()
    return version, f"git+{url}@{revision}"


@pytest.mark.slow
def test_the_pull_request_job_installs_from_the_source_and_gates(source: str, data_root: Path, tmp_path: Path) -> None:
    repo = _team_repository(tmp_path / "work")
    env = _base_env(_venv(tmp_path / "venv"), tmp_path / "home")
    workflow = repo / ".github" / "workflows" / "auditflow-pr.yml"

    def job(data: Path | None, **skip: str) -> list[StepResult]:
        runner = Runner(workflow, repo, env, Stand(data).actions(), skip=skip)
        runner.env["AUDITFLOW_SOURCE"] = source
        return runner.run()

    again = {"Install": "installed by the first run of this job, into the same venv"}

    # the data-root cache missed: the job still passes, warns, and skips the case that needs the data root
    missed = job(None)
    assert "::warning title=AuditFlow data root missing::" in _ran(missed, "Say when the data root is missing").stdout
    _ran(missed, "Install")
    assert _installed_from(env) == (VERSION, source)  # this checkout, through git at the tag: not the index
    shown = _run(["python", "-m", "pip", "show", "pytest-auditflow"], env=env, cwd=env["HOME"]).stdout
    for line in (f"Home-page: {PROJECT['urls']['Homepage']}", "Author: AuditFlow contributors",
                 "License-Expression: Apache-2.0"):
        assert line in shown.splitlines(), shown
    licence = _run(["python", "-c", "import importlib.metadata as m; "
                    "print(m.distribution('pytest-auditflow').read_text('licenses/LICENSE'))"], env=env, cwd=env["HOME"])
    assert "Version 2.0, January 2004" in licence.stdout, licence.stderr
    cases = _ran(missed, "Audit cases (replay only)").stdout
    assert "4 passed, 1 skipped" in cases and "skipped 1 case(s): needs the AuditFlow data root" in cases, cases[-3000:]
    assert " 0 misses" in cases

    # restored: every case runs; its results, reviewed, become the baseline
    (repo / "auditflow-results.json").unlink()
    hit = job(data_root, **again)
    assert "::warning" not in _ran(hit, "Say when the data root is missing").stdout
    cases = _ran(hit, "Audit cases (replay only)").stdout
    assert "5 passed" in cases and "skipped" not in cases and " 0 misses" in cases, cases[-3000:]
    shutil.copy2(repo / "auditflow-results.json", repo / "cases" / "baseline.json")

    # a change that breaks a case fails the job, naming the case
    case_file = repo / "cases" / "acme.case.yaml"
    text = case_file.read_text(encoding="utf-8")
    case_file.write_text(text.replace('expected_value: "216150000"', 'expected_value: "216150001"', 1), encoding="utf-8")
    assert case_file.read_text(encoding="utf-8") != text
    broken = job(data_root, **again)
    (gate,) = [r for r in broken if r.name == "Audit cases (replay only)"]
    assert gate.returncode == 1, gate.output[-3000:]
    assert "gate baseline: FAILED" in gate.stdout and "cases/acme.case.yaml::acme-assets-calc" in gate.stdout
    assert broken[-1] is gate  # the job stops there (the artifact step's if: always() is GitHub's)


@pytest.mark.slow
def test_the_rerecord_job_installs_and_proposes_the_baseline(source: str, data_root: Path, tmp_path: Path) -> None:
    """All its shell steps, the model step included when this machine has the 1.5B model: the fresh home
    then gets it where ``auditflow model install`` looks (~/.cache/auditflow/models), so the step verifies
    it instead of assembling 1 GB from the index. Without it the steps up to the install run, then skip."""
    from auditflow.llm.install import model_path

    repo = _team_repository(tmp_path / "work")
    home = tmp_path / "home"
    env = _base_env(_venv(tmp_path / "venv"), home)
    installed = model_path("1.5b")
    if installed is not None:
        (home / ".cache" / "auditflow").mkdir(parents=True)
        (home / ".cache" / "auditflow" / "models").symlink_to(installed.parent, target_is_directory=True)
    stand = Stand(data_root)
    runner = Runner(repo / ".github" / "workflows" / "auditflow-rerecord.yml", repo, env, stand.actions())
    runner.env["AUDITFLOW_SOURCE"] = source
    results = runner.run(until=None if installed else "Install, with the local model runtime")
    _ran(results, "Install, with the local model runtime")
    assert _installed_from(env) == (VERSION, source)
    if installed is None:
        pytest.skip("the recording step runs the local model, not installed here: auditflow model install 1.5b")
    assert str(installed.name) in _ran(results, "The local model").output
    assert runner.outputs["cache"] == {"dir": "llm-cache"}  # the ini's auditflow_cache_dir
    recorded = _ran(results, "Record missing LLM calls and write the new baseline").stdout
    assert "5 passed" in recorded and " 0 misses" in recorded, recorded[-3000:]
    # what the pull request would hold: the new baseline; the cache had every call, so nothing new there
    assert stand.pull_request == ["cases/baseline.json"]
    baseline = json.loads((repo / "cases" / "baseline.json").read_text(encoding="utf-8"))
    assert len(baseline["cases"]) == 5


def test_the_data_root_job_unpacks_and_saves(tmp_path: Path) -> None:
    """Its one shell step, with a small archive of the expected layout (an input URL on disk)."""
    repo = tmp_path / "work" / "team"
    repo.mkdir(parents=True)
    _git(repo, "init", "--quiet")
    layout = tmp_path / "layout"
    for part in ("taxonomy", "dqc", "filings"):
        (layout / part).mkdir(parents=True)
        (layout / part / "README").write_text(part, encoding="utf-8")
    archive = tmp_path / "data.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for part in ("taxonomy", "dqc", "filings"):
            tar.add(layout / part, arcname=part)
    env = _base_env(Path(sys.executable).parent.parent, tmp_path / "home")
    runner = Runner(WORKFLOWS / "auditflow-data-root.yml", repo, env, Stand(None).actions(),
                    inputs={"url": archive.as_uri()})
    results = runner.run()
    assert _ran(results, "Download").stdout.split() == ["dqc", "filings", "taxonomy"]
    assert (repo.parent / "auditflow-data" / "dqc" / "README").read_text(encoding="utf-8") == "dqc"
