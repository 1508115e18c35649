"""``auditflow eval`` end to end on sample cases with the policy backend (no LLM, no data root needed)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook

from auditflow.cli.main import main

CONFIGS = "policy,no-checks"


def run(case_dir: Path, out: Path, *extra: str) -> int:
    return main(["eval", str(case_dir), "--configs", CONFIGS, "--out", str(out), "--bootstrap", "500", *extra])


def test_rerun_on_the_same_cache_reproduces_the_reports_byte_for_byte(case_dir: Path, tmp_path: Path) -> None:
    """Different output folders and concurrency, same bytes: nothing measured by a clock is in them."""
    assert run(case_dir, tmp_path / "one", "--jobs", "1") == 0
    assert run(case_dir, tmp_path / "two", "--concurrency", "3") == 0  # the same as --jobs
    for name in ("results.md", "results.json"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name
    md = (tmp_path / "one" / "results.md").read_text(encoding="utf-8")
    assert f"--configs {CONFIGS} --model policy --seed 0 --bootstrap 500" in md
    assert "--out" not in md and "--jobs" not in md
    assert "| policy | `policy` | 3 | 100.00% (3/3) | 100.00% (3/3) | 100.00% (2/2) | 100.00% (2/2) |" in md
    assert "| policy vs no-checks | 3 |" in md
    run_info = json.loads((tmp_path / "two" / "run.json").read_text())
    assert run_info["jobs"] == 3 and len(run_info["cases"]) == 6
    assert all(c["seconds"] >= 0 for c in run_info["cases"])


def test_results_json_has_metrics_comparisons_and_records(case_dir: Path, tmp_path: Path) -> None:
    assert run(case_dir, tmp_path) == 0
    doc = json.loads((tmp_path / "results.json").read_text())
    assert [c["name"] for c in doc["configs"]] == ["policy", "no-checks"] and doc["reference"] == "policy"
    assert doc["metrics"]["policy"]["joint_acc"] == 1.0
    assert doc["metrics"]["policy"]["by_expected_decision"]["consistent"]["n"] == 2
    keys = [r["key"] for r in doc["records"]["policy"]]
    assert keys == sorted(keys) and keys[0].endswith("sample.case.yaml::assets-calc")
    assert doc["comparisons"][0]["other"] == "no-checks" and doc["comparisons"][0]["resamples"] == 500
    assert "seconds" not in json.dumps(doc)


def test_workbook_opens_and_holds_the_table(case_dir: Path, tmp_path: Path) -> None:
    assert run(case_dir, tmp_path) == 0
    wb = load_workbook(tmp_path / "results.xlsx")
    assert wb.sheetnames == ["results", "comparisons", "cases"]  # seconds: run.json only
    rows = list(wb["results"].iter_rows(values_only=True))
    header = rows[0]
    assert header[:5] == ("configuration", "protocol", "model", "cases", "Joint ACC")
    by_name = {r[0]: dict(zip(header, r)) for r in rows[1:]}
    assert set(by_name) == {"policy", "no-checks"}
    assert by_name["policy"]["Joint ACC"] == 1.0 and by_name["policy"]["cases"] == 3
    assert by_name["policy"]["consistent cases"] == 2 and by_name["policy"]["DQC.US.0117 ACC"] == 1.0
    assert wb["results"]["E2"].number_format == "0.00%"
    assert wb["cases"].max_row == 1 + 6


def test_cache_miss_in_replay_mode_is_reported_per_case(case_dir: Path, tmp_path: Path, capsys) -> None:
    """An LLM configuration with an empty cache: every case is a reported miss, the run goes on, exit 1."""
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    code = main(["eval", str(case_dir), "--configs", "full,policy", "--model", "openai:gpt-4o", "--cache-dir",
                 str(cache), "--out", str(tmp_path / "out"), "--bootstrap", "200"])
    assert code == 1
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    full = doc["records"]["full"]
    assert [r["error_kind"] for r in full] == ["cache_miss"] * 3 and {r["label"] for r in full} == {"S"}
    assert doc["metrics"]["full"]["problems"] == {"cache_miss": 3} and doc["metrics"]["policy"]["joint_acc"] == 1.0
    assert str(cache) not in json.dumps(doc["records"]) and "<cache_dir>" in full[0]["error"]  # redacted
    md = (tmp_path / "out" / "results.md").read_text()
    assert "## Cases without an audit result" in md and md.count("| full | `") == 3 + 1  # 3 misses + accuracy row
    assert "--configs full --model openai:gpt-4o" in md and "--record-mode new_episodes" in md
    out = capsys.readouterr().out
    assert "LLM cache misses" in out and "3 run(s) without an audit result" in out


def test_charts_are_drawn_when_matplotlib_is_installed(case_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    assert run(case_dir, tmp_path) == 0
    for name in ("per-rule-accuracy.png", "error-types.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_the_charts_are_skipped_saying_so(case_dir: Path, tmp_path: Path, capsys,
                                                             monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    assert run(case_dir, tmp_path / "plain") == 0
    err = capsys.readouterr().err
    assert "charts skipped" in err and "pytest-auditflow[charts]" in err
    assert not list((tmp_path / "plain").glob("*.png"))
    md = (tmp_path / "plain" / "results.md").read_text()
    assert ".png)" not in md  # no link to a chart that was never written
    assert "Not drawn: charts skipped: matplotlib is not installed" in md


@pytest.mark.parametrize(("argv", "message"), [
    (["--configs", "full,fastest"], "unknown configuration 'fastest'"),
    (["--configs", "full", "--model", "nonsense"], "not of the form provider:model"),
])
def test_usage_errors_exit_2(case_dir: Path, tmp_path: Path, capsys, argv: list[str], message: str) -> None:
    assert main(["eval", str(case_dir), "--out", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_case_path_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main(["eval", str(tmp_path / "nope"), "--configs", "policy", "--out", str(tmp_path)]) == 2
    assert "no such case file or folder" in capsys.readouterr().err


def test_repository_cases_are_named_as_the_plugin_names_them(tmp_path: Path) -> None:
    """Cases inside the project: keys are pytest node ids, the command is relative to the rootdir; the model is
    the ini's (auditflow_model), as the plugin's."""
    repo = Path(__file__).resolve().parents[2]
    assert main(["eval", str(repo / "cases" / "acme-sample.case.yaml"), "--configs", "policy", "--out", str(tmp_path),
                 "--bootstrap", "10"]) == 0
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["command"] == ("auditflow eval cases/acme-sample.case.yaml --configs policy --model local:qwen2.5-coder-1.5b "
                              "--seed 0 --bootstrap 10")
    assert "cases/acme-sample.case.yaml::acme-assets-calc" in [c["key"] for c in doc["cases"]]
    assert doc["comparisons"] == [] and "Only one configuration ran" in (tmp_path / "results.md").read_text()


def test_notes_are_appended_verbatim_and_named_in_the_command(case_dir: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("## What the numbers mean\n\nThe policy relays the checkers.\n", encoding="utf-8")
    assert run(case_dir, tmp_path / "out", "--notes", str(notes)) == 0
    md = (tmp_path / "out" / "results.md").read_text(encoding="utf-8")
    assert md.endswith("## What the numbers mean\n\nThe policy relays the checkers.\n")
    assert f"--notes {notes}" in md  # outside the project: named as given


def test_a_missing_notes_file_is_an_error_naming_it(case_dir: Path, tmp_path: Path, capsys) -> None:
    assert main(["eval", str(case_dir), "--configs", "policy", "--out", str(tmp_path), "--notes", str(tmp_path / "no.md")]) == 2
    assert "no.md: cannot read the notes file" in capsys.readouterr().err


def test_used_keys_name_every_cache_entry_the_run_read_or_wrote(case_dir: Path, tmp_path: Path, monkeypatch) -> None:
    """What `auditflow cache prune DIR --used FILE` keeps: after a recording, exactly the entries written;
    after a replay of the same cases, the same keys again (hits count as used)."""
    from auditflow.llm import factory
    from auditflow.llm.cache import iter_entries
    from auditflow.llm.toolcalls import ToolCallingAdapter

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "llm"))
    from llm_fakes import TextPolicyModel  # a text-only model that writes the policy's calls

    monkeypatch.setattr(factory, "inner_model", lambda spec: ToolCallingAdapter(inner=TextPolicyModel()))
    cache = tmp_path / "cache"
    argv = ["eval", str(case_dir), "--configs", "full", "--model", "local:qwen2.5-coder-1.5b", "--cache-dir", str(cache),
            "--bootstrap", "100", "--no-charts"]
    assert main([*argv, "--record-mode", "new_episodes", "--out", str(tmp_path / "rec"), "--used-keys",
                 str(tmp_path / "rec-keys.json")]) == 0
    written = {p.stem for p in iter_entries(cache)}
    recorded = json.loads((tmp_path / "rec-keys.json").read_text())["used_keys"]
    assert len(written) > 3 and recorded == sorted(written)
    assert main([*argv, "--out", str(tmp_path / "replay"), "--used-keys", str(tmp_path / "replay-keys.json")]) == 0
    assert json.loads((tmp_path / "replay-keys.json").read_text())["used_keys"] == recorded


def test_without_a_terminal_each_finished_case_is_one_log_line(case_dir: Path, tmp_path: Path, capsys) -> None:
    """A run logged to a file shows its progress case by case (the bar is only drawn on a terminal)."""
    assert run(case_dir, tmp_path / "out", "--jobs", "1") == 0
    logged = re.compile(r"^(policy|no-checks) ([1-3])/3 ([ASEC]) \S+::\S+ \(\d+m\d\ds\)$")
    lines = [m.groups() for line in capsys.readouterr().err.splitlines() if (m := logged.match(line))]
    assert sorted((config, done) for config, done, _ in lines) == [
        ("no-checks", "1"), ("no-checks", "2"), ("no-checks", "3"), ("policy", "1"), ("policy", "2"), ("policy", "3")]
    assert {label for config, _, label in lines if config == "policy"} == {"A"}


def test_the_default_cases_in_flight_keep_the_local_models_prompt_caches(case_dir: Path, tmp_path: Path) -> None:
    """Without --jobs, a row on the in-process local model runs two cases at once (its four prompt-cache
    slots hold two cases' auditors); other rows run eight."""
    from auditflow.cli.eval_cmd import DEFAULT_JOBS, LOCAL_JOBS, default_jobs
    from auditflow.eval.plan import parse_configs

    assert default_jobs(parse_configs("policy,no-checks", model="policy")) == DEFAULT_JOBS == 8
    assert default_jobs(parse_configs("policy,full", model="local:qwen2.5-coder-1.5b")) == LOCAL_JOBS == 2
    assert default_jobs(parse_configs("full", model="openai-compatible:http://127.0.0.1:8080/v1#m")) == 8
    assert run(case_dir, tmp_path / "out") == 0
    assert json.loads((tmp_path / "out" / "run.json").read_text())["jobs"] == DEFAULT_JOBS
