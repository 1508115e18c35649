"""Issue 44, item 10: a case's ``filing:`` stays inside the case file's folder, the data root, the
project's rootdir or AuditFlow's bundled samples.

``data_root/filings/<spec>`` and ``case_dir/<spec>`` were not confined, so ``../../..`` loaded from
anywhere; pointed at a system folder, the loader walked the tree and opened its XML files. Now such a
value is a case input error naming the case file, its line and the value, and nothing outside is
looked at: checked from inside (a ``sys.addaudithook`` hook) and from outside (``strace``).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditflow.cases.errors import CaseInputError
from auditflow.cases.filings import resolve_filing
from auditflow.graphs.factory import SAMPLES
from auditflow.cases.loader import load_case_file

REPO = Path(__file__).resolve().parents[2]
SAMPLE = SAMPLES / "acme-10k-2024" / "xml"

CASE = """auditflow: 1
cases:
  - id: climbs-out
    filing: {filing}
    query: {{concept: us-gaap:Assets, period: 2024-12-31}}
    expect: {{decision: consistent}}
"""


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """``proj/cases`` (the case files), ``proj/data/filings`` (the data root), ``proj/filings`` (beside
    the cases, inside the rootdir ``proj``) and, outside all of them, ``etc/`` holding XBRL-looking files."""
    proj = tmp_path / "proj"
    (proj / "cases").mkdir(parents=True)
    shutil.copytree(SAMPLE, proj / "data" / "filings" / "acme" / "xml")
    shutil.copytree(SAMPLE, proj / "filings" / "beside" / "xml")
    shutil.copytree(SAMPLE, tmp_path / "etc" / "acme")
    return {"proj": proj, "cases": proj / "cases", "data": proj / "data", "etc": tmp_path / "etc"}


@pytest.mark.parametrize("spec", ["../../etc", "../../etc/acme", "sub/../../../etc", "../../etc/../etc", "ETC", "/etc",
                                  "~/etc", "../data/../../etc"])
def test_a_filing_outside_the_allowed_folders_is_refused(layout, spec) -> None:
    spec = spec.replace("ETC", str(layout["etc"]))
    with pytest.raises(CaseInputError) as err:
        resolve_filing(spec, case_dir=layout["cases"], data_root=layout["data"], rootdir=layout["proj"])
    message = str(err.value)
    if spec != "~/etc":  # a folder named "~" under the case folder: inside, and not there
        assert f"filing {spec!r} points to" in message
        assert "outside the folders a case's filing may come from" in message
        assert str(layout["data"]) in message and "docs/reliability.md" in message


def test_a_data_root_name_that_climbs_out_is_refused(layout) -> None:
    with pytest.raises(CaseInputError, match="points to .*etc, outside"):
        resolve_filing("../../../etc", case_dir=layout["cases"], data_root=layout["data"])


def test_the_allowed_folders_still_resolve(layout) -> None:
    def resolved(spec: str, **kw) -> Path:
        return resolve_filing(spec, case_dir=layout["cases"], data_root=kw.get("data_root", layout["data"]),
                              rootdir=kw.get("rootdir"))

    assert resolved("acme/xml") == (layout["data"] / "filings" / "acme" / "xml").resolve()  # a data-root name
    assert resolved(str(layout["data"] / "filings" / "acme")) == (layout["data"] / "filings" / "acme").resolve()
    beside = (layout["proj"] / "filings" / "beside" / "xml").resolve()
    assert resolved("../filings/beside/xml", rootdir=layout["proj"]) == beside
    assert resolved(str(SAMPLE), data_root=None) == SAMPLE  # the bundled sample, from anywhere
    (layout["cases"] / "here").mkdir()
    assert resolved("here") == (layout["cases"] / "here").resolve()
    with pytest.raises(CaseInputError, match="outside"):  # a sibling folder needs the rootdir
        resolved("../filings/beside/xml")


def test_a_command_line_filing_is_not_confined(layout) -> None:
    assert resolve_filing(str(layout["etc"]), case_dir=layout["cases"], data_root=None, confine=False) == layout["etc"]


def test_a_symlink_that_leads_outside_is_refused(layout) -> None:
    (layout["cases"] / "link").symlink_to(layout["etc"], target_is_directory=True)
    (layout["data"] / "filings" / "linked").symlink_to(layout["etc"], target_is_directory=True)
    for spec in ("link", "link/acme", "linked"):
        with pytest.raises(CaseInputError, match=f"filing '{spec}' leads through a symlink to .*etc.*, outside"):
            resolve_filing(spec, case_dir=layout["cases"], data_root=layout["data"], rootdir=layout["proj"])


def test_the_case_reports_an_input_error_naming_its_file_line_and_value(layout) -> None:
    from auditflow.cases.runner import run_case
    from auditflow.cases.settings import RunSettings

    path = layout["cases"] / "evil.case.yaml"
    path.write_text(CASE.format(filing="../../etc/acme"), encoding="utf-8")
    (case,) = load_case_file(path)
    outcome = run_case(case, RunSettings(data_root=layout["data"], rootdir=layout["proj"]))
    assert outcome.error_kind == "input" and outcome.result is None
    assert outcome.error.startswith(f"{path}:3: filing '../../etc/acme' points to {layout['etc'] / 'acme'}, outside")


# The child: every case of the file through the runner, with a hook recording every file opened or
# listed once the modules are imported.
WATCHED = r"""
import json, os, sys
from pathlib import Path
from auditflow.cases.loader import load_case_file
from auditflow.cases.runner import run_case
from auditflow.cases.settings import RunSettings
import auditflow.xbrl.loader, auditflow.graphs.environment, auditflow.agents.audit  # imported before watching

seen = []
def hook(event, args):
    if event in ("open", "os.listdir", "os.scandir", "os.walk", "glob.glob", "shutil.copytree") and args:
        target = args[0]
        if isinstance(target, (str, bytes, os.PathLike)):
            seen.append(os.path.realpath(os.fsdecode(target)))
sys.addaudithook(hook)
cases = load_case_file(Path(sys.argv[1]))
settings = RunSettings(data_root=Path(sys.argv[2]), rootdir=Path(sys.argv[3]))
errors = [run_case(case, settings).error for case in cases]
print(json.dumps({"errors": errors, "seen": seen}))
"""


def _evil_cases(layout) -> Path:
    path = layout["cases"] / "evil.case.yaml"
    specs = ["../../etc", "../../etc/acme", str(layout["etc"] / "acme"), "/etc", "../data/filings/../../../etc/acme"]
    body = "auditflow: 1\ncases:\n" + "".join(
        f"  - id: c{i}\n    filing: {spec}\n    query: {{concept: us-gaap:Assets, period: 2024-12-31}}\n"
        "    expect: {decision: consistent}\n" for i, spec in enumerate(specs))
    path.write_text(body, encoding="utf-8")
    return path


def _child(layout, *prefix: str) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-c", WATCHED, str(_evil_cases(layout)), str(layout["data"]),
                           str(layout["proj"])], capture_output=True, text=True, timeout=300, cwd=REPO)


def test_nothing_outside_is_opened_or_listed_audit_hook(layout) -> None:
    done = _child(layout)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(got["errors"]) == 5 and all(e and "outside the folders" in e for e in got["errors"])
    outside = [p for p in got["seen"] if Path(p).is_relative_to(layout["etc"]) or Path(p).is_relative_to("/etc")]
    assert outside == []


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_nothing_outside_is_looked_at_strace(layout, tmp_path) -> None:
    """Every file system call of the child and its threads (open, stat, readlink, getdents...): none
    names the outside folder, not even to see whether it exists."""
    log = tmp_path / "strace.log"
    done = _child(layout, "strace", "-f", "-qq", "-e", "trace=%file,getdents64", "-o", str(log))
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout.strip().splitlines()[-1])["errors"]) == 5
    calls = log.read_text(encoding="utf-8", errors="replace").splitlines()
    assert any("evil.case.yaml" in c for c in calls)  # the trace does see the child's files
    named = [(c, Path(os.path.normpath(REPO / p))) for c in calls for p in re.findall(r'"([^"]*)"', c)]
    assert [c for c, p in named if p.is_relative_to(layout["etc"]) or p.is_relative_to("/etc/acme")] == []
    assert [c for c, p in named if p == Path("/etc")] == []  # (the loader's ld.so.cache and such are not ours)
    assert [c for c, p in named if p.is_relative_to(layout["proj"] / "etc")]  # what the rootdir allows is looked up
