"""Issue 44, items 8 and 9: a case file costs memory in proportion to what it says, not to what its
aliases expand to or to its size on disk.

* 2,000 aliases to one 30,000-character string (a 38 KB file) once reached 436 MB: every schema error
  quoted the 30,000 characters again. The expansion is now bounded in characters as well as in nodes,
  quoted values are cut, and a file lists at most 100 problems.
* A 2 GB file was read whole before the 16 MiB check (2.1 GB, or a ``MemoryError``), both to load it
  and to decide whether a ``.yaml`` is a case file. Both now look at the size (``fstat``) first.

Peak memory is measured in a child process (its own ``ru_maxrss``), so nothing this process holds
counts. The 2 GB files are sparse: they take no disk space, but reading them would take 2 GB of memory.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from auditflow.cases.errors import CaseFileError
from auditflow.cases.loader import SNIFF_HEAD, is_case_file, load_case_file
from auditflow.cases.schema import MAX_PROBLEMS, validate_file
from auditflow.cases.yamlsrc import MAX_EXPANDED_CHARS, MAX_TEXT, parse_yaml

REPO = Path(__file__).resolve().parents[2]
MB = 1024 * 1024

# The child: load each file given (the sniff first), report the outcome and its own peak memory.
CHILD = r"""
import json, resource, sys
from pathlib import Path
from auditflow.cases.loader import is_case_file, load_case_file
out = []
for name in sys.argv[1:]:
    path = Path(name)
    sniffed = is_case_file(path)
    try:
        load_case_file(path)
        message = ""
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
    out.append({"sniffed": sniffed, "message": message})
print(json.dumps({"files": out, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _load_in_child(*paths: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, *map(str, paths)], capture_output=True, text=True,
                          timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _baseline_mb() -> float:
    """The child's peak on a small valid case file: the interpreter and AuditFlow's imports (17 MB when
    measured), which other work may change, so the bounds below are over it."""
    return _load_in_child(REPO / "cases" / "acme-sample.case.yaml")["peak_mb"]


# What a bounded file may add to the child's peak (the bound is 100 MB in all).
EXTRA_MB = 60


def _aliases_to_one_string(path: Path, chars: int, aliases: int, *, where: str) -> Path:
    long = "A" * chars
    refs = ", ".join(["*s"] * aliases)
    if where == "cases":  # every case is the string: "must be object, got string 'AAAA...'" each
        body = f"auditflow: 1\nx: &s \"{long}\"\ncases: [{refs}]\n"
    else:  # every tag is the string: "'AAAA...' does not match ^[A-Za-z_][A-Za-z0-9_]*$" each
        body = (f"auditflow: 1\nx: &s \"{long}\"\ncases:\n- id: a\n  filing: f\n"
                f"  query: {{concept: us-gaap:Assets, period: 2024-12-31}}\n  expect: {{decision: consistent}}\n"
                f"  tags: [{refs}]\n")
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["cases", "tags"])
def test_a_38_kb_file_of_aliases_to_one_long_string_stays_small_and_its_error_short(tmp_path, where) -> None:
    path = _aliases_to_one_string(tmp_path / f"{where}.case.yaml", 30_000, 2_000, where=where)
    assert 37_000 < path.stat().st_size < 39_000  # the file: 2,000 x 30,000 = 60 million characters
    got = _load_in_child(path)
    message = got["files"][0]["message"]
    assert message.startswith("CaseFileError") and "more than 16,777,216 characters" in message
    assert len(message) < 1_000  # before: 60 million characters
    assert got["peak_mb"] < _baseline_mb() + EXTRA_MB  # before: 190 MB (17 MB of imports), 436 MB through pytest


def test_aliases_just_under_the_character_bound_give_a_short_list_of_short_problems(tmp_path) -> None:
    # 9,000 x 1,700 = 15.3 million characters: allowed, and every alias breaks the tag pattern
    path = _aliases_to_one_string(tmp_path / "under.case.yaml", 1_700, 9_000, where="tags")
    assert 9_000 * 1_700 < MAX_EXPANDED_CHARS
    got = _load_in_child(path)
    lines = got["files"][0]["message"].splitlines()
    assert lines[0].endswith(f"{MAX_PROBLEMS + 1} problems in this AuditFlow case file:")
    assert "8,900 more problems like these" in lines[-2]  # 9,001 problems: 100 listed, one line for the rest
    assert max(map(len, lines)) < 400  # each quotes the string cut to about 240 characters
    assert got["peak_mb"] < _baseline_mb() + EXTRA_MB


def test_a_quoted_value_is_cut_in_the_message() -> None:
    doc = parse_yaml("auditflow: 1\ncases:\n- id: a\n  filing: f\n  query: {concept: " + "x" * 1_000_000
                     + ", period: 2024-12-31}\n  expect: {decision: consistent}\n", file="long.case.yaml")
    (problem,) = validate_file(doc.data, file="long.case.yaml", line_map=doc.line_map)
    assert problem.field == "cases[0].query.concept" and problem.line == 5
    assert "'xxx" in problem.message and "..." in problem.message and len(problem.message) < 400


def test_a_real_concept_name_is_still_quoted_whole() -> None:
    name = "us-gaap:IncreaseDecreaseInOperatingCapital" + "Long" * 30  # a long name, and a wrong period
    doc = parse_yaml(f"auditflow: 1\ncases:\n- id: a\n  filing: f\n  query: {{concept: {name}, period: 2024}}\n"
                     "  expect: {decision: consistent}\n", file="p.case.yaml")
    problems = validate_file(doc.data, file="p.case.yaml", line_map=doc.line_map)
    assert [p.field for p in problems] == ["cases[0].query.period"]
    doc = parse_yaml(f"auditflow: 1\ncases:\n- id: a\n  filing: f\n  query: {{concept: {name}, period: 2024-12-31}}\n"
                     "  expect: {decision: nope}\n", file="p.case.yaml")
    (problem,) = validate_file(doc.data, file="p.case.yaml", line_map=doc.line_map)
    assert problem.message.endswith("got 'nope'")
    bad = name + "!"
    doc = parse_yaml(f"auditflow: 1\ncases:\n- id: a\n  filing: f\n  query: {{concept: '{bad}', period: 2024-12-31}}\n"
                     "  expect: {decision: consistent}\n", file="p.case.yaml")
    (problem,) = validate_file(doc.data, file="p.case.yaml", line_map=doc.line_map)
    assert repr(bad) in problem.message  # 163 characters: shown whole


def test_an_aliased_mapping_is_walked_once_for_its_lines() -> None:
    # 900 cases holding an alias to one 400-key mapping: 720,000 expanded nodes (allowed); the line map
    # holds the written nodes only (an alias's content has its anchor's lines)
    keys = ", ".join(f"k{i}: 1" for i in range(400))
    items = ", ".join(f"{{id: c{i}, query: *m}}" for i in range(900))
    doc = parse_yaml(f"auditflow: 1\nx: &m {{{keys}}}\ncases: [{items}]\n", file="m.case.yaml")
    assert doc.data["cases"][899]["query"]["k399"] == 1
    assert len(doc.line_map) < 5_000  # before: 362,000 entries (the alias walked again under each case)
    assert doc.line_map[("cases", 899, "query")] == 3 and doc.line_map[("x", "k399")] == 2


def test_unique_items_are_checked_in_linear_time() -> None:
    tags = [f"t{i}" for i in range(60_000)] + ["t7"]
    data = {"auditflow": 1, "cases": [{"id": "a", "filing": "f", "expect": {"decision": "consistent"},
                                       "query": {"concept": "us-gaap:Assets", "period": "2024-12-31"}, "tags": tags}]}
    started = time.perf_counter()
    problems = validate_file(data, file="t.case.yaml", line_map={})
    assert time.perf_counter() - started < 5  # before: about 50 s (each tag compared with every earlier one)
    assert [(p.field, p.message) for p in problems] == [("cases[0].tags[60000]", "'t7' is listed twice")]


def _sparse(path: Path, head: bytes, size: int = 2 << 30) -> Path:
    with path.open("wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return path


def test_a_2_gb_case_file_and_a_2_gb_yaml_are_refused_without_being_read(tmp_path) -> None:
    head = b"auditflow: 1\ncases: []\n"
    named = _sparse(tmp_path / "big.case.yaml", head)  # a case file by its name: no sniff
    sniffed = _sparse(tmp_path / "big.yaml", head)  # a case file by its auditflow: key (in the first 64 KiB)
    other = _sparse(tmp_path / "other.yaml", b"services: {}\n")  # no auditflow: key in the first 64 KiB
    late = _sparse(tmp_path / "late.yaml", b"x: 1\n", size=MAX_TEXT + 1)  # its key after the first 64 KiB
    with late.open("r+b") as fh:
        fh.seek(SNIFF_HEAD)
        fh.write(b"\nauditflow: 1\n")
    got = _load_in_child(named, sniffed, other, late)
    assert [f["sniffed"] for f in got["files"]] == [True, True, False, False]
    for f in got["files"]:
        assert "cannot read the file: the file is" in f["message"] and "(more than 16777216); refused" in f["message"]
        assert "at most 16 MiB" in f["message"] and len(f["message"]) < 600
    assert got["peak_mb"] < _baseline_mb() + EXTRA_MB  # reading a 2 GB one whole takes 2 GB


def test_the_sniff_still_reads_a_file_under_the_limit_to_its_end(tmp_path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("# " + "x" * 200_000 + "\ncases: []\nauditflow: 1\n", encoding="utf-8")
    assert is_case_file(path)
    path.write_text("# " + "x" * 200_000 + "\ncases: []\n", encoding="utf-8")
    assert not is_case_file(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_waited_on(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    os.mkfifo(tmp_path / "fifo.case.yaml")
    got = _load_in_child(tmp_path / "fifo.yaml", tmp_path / "fifo.case.yaml")  # before: blocked in open()
    assert [f["sniffed"] for f in got["files"]] == [False, True]
    assert "not a regular file" in got["files"][1]["message"]


def test_unreadable_case_files_are_case_file_errors(tmp_path) -> None:
    with pytest.raises(CaseFileError, match="it does not exist"):
        load_case_file(tmp_path / "missing.case.yaml")
    (tmp_path / "latin1.case.yaml").write_bytes(b"auditflow: 1\n# caf\xe9\ncases: []\n")
    with pytest.raises(CaseFileError, match=r"not UTF-8 text \(invalid continuation byte at byte 18\)"):
        load_case_file(tmp_path / "latin1.case.yaml")


def test_a_2_gb_yaml_in_a_pytest_run_is_one_error_and_costs_no_more_than_a_small_run(tmp_path) -> None:
    """Through the plugin: the sniff and the loader of a collected folder, peak memory of the pytest child
    compared with the same run without the big file."""
    from tests.plugin.plugin_cases import ASSETS_OK, case_file

    (tmp_path / "good.case.yaml").write_text(case_file(ASSETS_OK), encoding="utf-8")
    measure = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(r.stdout[-3000:]); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    cmd = [sys.executable, "-c", measure, sys.executable, "-m", "pytest", "--auditflow", "-p", "no:cacheprovider",
           "-p", "no:xdist", "-q", str(tmp_path)]

    def run() -> tuple[str, float]:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path,
                              env={**os.environ, "AUDITFLOW_FILING_CACHE": "off"})
        *out, peak = done.stdout.strip().splitlines()
        return "\n".join(out), float(peak)

    _, small = run()
    _sparse(tmp_path / "big.yaml", b"auditflow: 1\ncases: []\n")
    out, big = run()
    assert "big.yaml" in out and "more than 16777216" in out
    assert big < small + 50  # reading it would add 2,048 MB
