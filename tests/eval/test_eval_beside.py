"""``--with-results FILE``: another evaluation's results.json summarised beside this one, and bad files refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditflow.cli.main import main


def _eval(case_dir: Path, out: Path, configs: str, *extra: str) -> int:
    return main(["eval", str(case_dir), "--configs", configs, "--out", str(out), "--bootstrap", "200", "--no-charts",
                 "--jobs", "2", *extra])


def test_another_eval_is_summarised_beside_this_one(case_dir: Path, tmp_path: Path) -> None:
    assert _eval(case_dir, tmp_path / "other", "policy,no-checks") == 0
    other = tmp_path / "other" / "results.json"
    assert _eval(case_dir, tmp_path / "main", "policy", "--with-results", str(other)) == 0
    md = (tmp_path / "main" / "results.md").read_text(encoding="utf-8")
    section = md[md.index("## Beside it:"):md.index("## Charts")]
    assert f"From `{other}` (3 cases), written by:" in section
    assert json.loads(other.read_text())["command"] in section
    assert "| policy vs no-checks | 3 |" in section  # the other run's own comparison
    across = section[section.index("## Joint ACC on every case set"):]
    assert "| policy | 100.00% (3/3) | 100.00% (3/3) |" in across
    assert "| no-checks | – | " in across  # a row the main run did not have
    assert f"--with-results {other}" in md  # part of the reproducing command
    again = tmp_path / "again"
    assert _eval(case_dir, again, "policy", "--with-results", str(other)) == 0
    assert (again / "results.md").read_text(encoding="utf-8") == md


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read the results file"),
    ("{not json", "not a JSON document"),
    ('{"auditflow_eval": 99}', "not an auditflow eval results document of format 1"),
    ('{"auditflow_eval": 1, "command": "auditflow eval x"}', "lacks or garbles"),
])
def test_a_file_that_is_not_an_eval_results_document_is_a_usage_error(case_dir: Path, tmp_path: Path, capsys,
                                                                       content: str | None, message: str) -> None:
    bad = tmp_path / "results.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    assert _eval(case_dir, tmp_path / "out", "policy", "--with-results", str(bad)) == 2
    err = capsys.readouterr().err
    assert "results.json" in err and message in err
    assert not (tmp_path / "out").exists()  # refused before anything ran
