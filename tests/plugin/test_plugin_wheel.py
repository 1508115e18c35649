"""``ci/`` copied into another repository that depends on ``pytest-auditflow`` from a wheel of this checkout.

The wheel is built from this checkout and installed (not editable) into a fresh virtual environment;
the dependencies come from the running interpreter's site-packages through a ``.pth`` file (so no
download is needed), everything of AuditFlow's own left out. The other repository holds a copy of the
sample filing, the starter sample cases, their recorded LLM calls and the ``ci/`` templates; then:

* with no data root anywhere, the README's command replays the sample cases (they are recorded without
  the data root too) and skips the one that needs it, saying so in one line;
* the README's command, run there without ``AUDITFLOW_DATA_ROOT``, finds the data root beside the
  project (``../shared/data``), although the package lives in site-packages, and writes the baseline;
* the pull-request workflow's ``run:`` commands, run as written (with the workflow's own env), pass;
* after a case is broken they fail, naming it.

Slow (a wheel build and a virtual environment, about a minute); CI runs it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
CACHE = REPO / "cases" / "llm-cache"
OWN = re.compile(r"^(auditflow|pytest_auditflow|__editable__)", re.IGNORECASE)
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _run(cmd, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kwargs)


@pytest.fixture(scope="module")
def wheel_dir(tmp_path_factory) -> Path:
    """``pytest_auditflow-<version>-py3-none-any.whl`` built from a copy of this checkout's sources."""
    src = tmp_path_factory.mktemp("src")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("auditflow", "pytest_auditflow"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    out = tmp_path_factory.mktemp("wheels")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)])
    assert built.returncode == 0, built.stdout + built.stderr
    assert [p.name for p in out.glob("*.whl")] == [f"pytest_auditflow-{VERSION}-py3-none-any.whl"]
    return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A new virtual environment that sees this interpreter's third-party packages, not AuditFlow."""
    root = tmp_path_factory.mktemp("venv")
    made = _run([sys.executable, "-m", "venv", str(root)])
    assert made.returncode == 0, made.stderr
    deps = root / "deps"
    deps.mkdir()
    purelib = Path(sysconfig.get_paths()["purelib"])
    for entry in purelib.iterdir():
        if not OWN.match(entry.name) and not entry.name.endswith(".pth"):
            (deps / entry.name).symlink_to(entry)
    site = Path(_run([str(root / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
                .stdout.strip())
    (site / "zz-deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    return root


def _other_repository(work: Path) -> Path:
    """``work/other``: sample filing, sample cases (those that need no data root's filings), their
    recorded calls, the ci/ templates where the README says to copy them."""
    repo = work / "other"
    shutil.copytree(SAMPLE, repo / "filings" / "acme-10k-2024" / "xml")
    (repo / "cases").mkdir()
    text = (REPO / "cases" / "acme-sample.case.yaml").read_text(encoding="utf-8")
    text = text.replace("../auditflow/samples/acme-10k-2024/xml", "../filings/acme-10k-2024/xml")
    (repo / "cases" / "acme.case.yaml").write_text(text, encoding="utf-8")
    cache = repo / "llm-cache"
    for manifest in (CACHE / "cases").glob("acme-*.json"):
        (cache / "cases").mkdir(parents=True, exist_ok=True)
        shutil.copy2(manifest, cache / "cases" / manifest.name)
        for key in yaml.safe_load(manifest.read_text(encoding="utf-8"))["keys"]:
            (cache / key[:2]).mkdir(exist_ok=True)
            shutil.copy2(CACHE / key[:2] / f"{key}.json", cache / key[:2] / f"{key}.json")
    (repo / "pyproject.toml").write_text(f"""\
[project]
name = "acme-audits"
version = "0"
dependencies = ["pytest-auditflow=={VERSION}"]

[tool.pytest.ini_options]
auditflow_model = "local:qwen2.5-coder-1.5b"
auditflow_cache_dir = "llm-cache"
""", encoding="utf-8")
    shutil.copytree(REPO / "ci", repo / "ci")
    (repo / ".github" / "workflows").mkdir(parents=True)
    shutil.copy2(REPO / "ci" / "github" / "auditflow-pr.yml", repo / ".github" / "workflows" / "auditflow-pr.yml")
    return repo


def _env(venv: Path, wheel_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AUDITFLOW_", "PYTEST_", "PIP_")) and k not in ("PYTHONPATH", "VIRTUAL_ENV", "COLUMNS")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_FIND_LINKS=str(wheel_dir), PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", COLUMNS="200")
    env.update(extra)
    return env


def _job_commands(repo: Path, wheel_dir: Path) -> tuple[dict[str, str], str, list[str]]:
    """The pull-request workflow's job env (installing from the wheel), its install command and its other
    ``run:`` commands (``uses:`` steps are GitHub's own; tests/ci/test_ci_templates.py runs the whole job)."""
    job = next(iter(yaml.safe_load((repo / ".github" / "workflows" / "auditflow-pr.yml").read_text())["jobs"].values()))
    env = {k: str(v).replace("${{ github.workspace }}", str(repo)) for k, v in job["env"].items()}
    (wheel,) = wheel_dir.glob("*.whl")
    env["AUDITFLOW_SOURCE"] = wheel.as_uri()
    commands = [step["run"] for step in job["steps"] if "run" in step]
    (install,) = [c for c in commands if "pip install" in c]
    return env, install, [c for c in commands if c is not install]


def test_ci_templates_in_another_repository(wheel_dir: Path, venv: Path, data_root: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    repo = _other_repository(work)
    job_env, install_command, commands = _job_commands(repo, wheel_dir)
    env = _env(venv, wheel_dir, **job_env)
    assert '"pytest-auditflow[test] @ ${AUDITFLOW_SOURCE}"' in install_command

    install = _run(["bash", "-ec", install_command], cwd=repo, env=env)
    assert install.returncode == 0, install.stdout + install.stderr
    where = _run(["python", "-c", "import auditflow, importlib.metadata as m; print(auditflow.__file__); "
                  "print(m.version('pytest-auditflow'))"], cwd=repo, env=env)
    assert where.stdout.split() == [str(venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
                                        / "site-packages" / "auditflow" / "__init__.py"), VERSION], where.stderr

    # no data root anywhere: the sample cases still replay (recorded without it too), the 0015 one is skipped
    plain = {k: v for k, v in env.items() if k != "AUDITFLOW_DATA_ROOT"}
    plain["HOME"] = str(tmp_path / "home")  # no ~/.cache/auditflow/data either
    bare = _run(["python", "-m", "pytest", "--auditflow", "cases/", "-p", "no:xdist"], cwd=repo, env=plain)
    assert bare.returncode == 0, bare.stdout[-4000:] + bare.stderr[-2000:]
    assert "data root none" in bare.stdout and "4 passed, 1 skipped" in bare.stdout and " 0 misses" in bare.stdout
    assert "skipped 1 case(s): needs the AuditFlow data root" in bare.stdout

    # the README's command, without AUDITFLOW_DATA_ROOT: the data root beside the project is found
    (work / "shared").mkdir()
    (work / "shared" / "data").symlink_to(data_root, target_is_directory=True)  # ../shared/data beside it
    (work / "auditflow-data").symlink_to(data_root, target_is_directory=True)  # where the workflow restores it
    first = _run(["python", "-m", "pytest", "--auditflow", "cases/", "-p", "no:xdist",
                  "--auditflow-json=cases/baseline.json"], cwd=repo, env=plain)
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    assert f"data root {(work / 'shared' / 'data').resolve()}" in first.stdout
    assert "skipped" not in first.stdout and "5 passed" in first.stdout
    assert "model local:qwen2.5-coder-1.5b (replaying recorded LLM calls)" in first.stdout

    for command in commands:  # the replay job, as written
        run = _run(["bash", "-ec", command], cwd=repo, env=env)
        assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "gate baseline: ok" in run.stdout and " 0 misses" in run.stdout
    assert (repo / "auditflow-results.json").is_file() and (repo / "auditflow-junit.xml").is_file()

    case_file = repo / "cases" / "acme.case.yaml"
    broken = case_file.read_text(encoding="utf-8").replace('expected_value: "216150000"', 'expected_value: "216150001"', 1)
    assert broken != case_file.read_text(encoding="utf-8")
    case_file.write_text(broken, encoding="utf-8")
    run = _run(["bash", "-ec", commands[-1]], cwd=repo, env=env)
    assert run.returncode == 1, run.stdout[-4000:] + run.stderr[-2000:]
    assert "gate baseline: FAILED" in run.stdout and "cases/acme.case.yaml::acme-assets-calc" in run.stdout
