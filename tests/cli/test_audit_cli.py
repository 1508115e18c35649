"""``auditflow audit ... --model SPEC [--record-mode MODE]``: the plugin's LLM cache and data root.

An audit of the same query, on the same filing, as a recorded case replays that case's calls from the
cache the ini names (``cases/llm-cache`` here), with no model installed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from auditflow.cli.main import main
from auditflow.llm import factory

REPO = Path(__file__).resolve().parents[2]
SAMPLE_XML = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
ASSETS = ["--concept", "us-gaap:Assets", "--period", "2024-12-31", "--rule", "0126", "--format", "json"]


def test_the_default_is_the_deterministic_policy(capsys) -> None:
    assert main(["audit", str(SAMPLE_XML), *ASSETS, "--no-taxonomy"]) == 1
    assert json.loads(capsys.readouterr().out)["decision"] == "violation"


@pytest.mark.parametrize("spec,mode,says", [
    ("gpt-4o", [], "unknown model 'gpt-4o'"),
    ("local:qwen2.5-coder-7b", [], "unknown local model 'qwen2.5-coder-7b'"),
    ("hf:foo/bar", ["--record-mode", "none"], "unknown model 'hf:foo/bar' for a replay"),
    # audit records by default (record mode once): what calling the model needs
    ("hf:foo/bar", [], "model 'hf:foo/bar' in record mode once calls the model, which needs the package"),
])
def test_an_unknown_model_is_an_error_before_anything_loads(spec, mode, says, capsys, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setitem(sys.modules, "langchain_huggingface", None)  # the hf extra is absent
    assert main(["audit", *ASSETS, "--model", spec, *mode]) == 2
    assert says in capsys.readouterr().err


def test_a_recorded_case_query_replays_from_the_plugins_cache(data_root, capsys, monkeypatch) -> None:
    """cases/acme-sample.case.yaml::acme-assets-calc, audited from the command line: zero model calls."""
    monkeypatch.setattr(factory, "inner_model", lambda spec: pytest.fail("the replay reached the model"))
    monkeypatch.chdir(REPO)
    code = main(["audit", "auditflow/samples/acme-10k-2024/xml", *ASSETS, "--model", "local:qwen2.5-coder-1.5b",
                 "--data-root", str(data_root)])
    out, err = capsys.readouterr()
    assert code == 1, err  # a violation, as check's findings
    result = json.loads(out)
    assert (result["decision"], result["triggered_rules"]) == ("violation", ["DQC.US.0126.9590"])


def test_the_backend_option_still_works(capsys) -> None:
    assert main(["audit", str(SAMPLE_XML), *ASSETS, "--backend", "policy"]) == 1
    assert json.loads(capsys.readouterr().out)["decision"] == "violation"


# issue 44, item 4: the exit code is the decision (0 consistent, 1 violation, 3 unable to verify), 2 an error
DECIDED = [("us-gaap:Liabilities", "2024-12-31", "0126", "consistent", 0),
           ("us-gaap:Assets", "2024-12-31", "0126", "violation", 1),
           ("us-gaap:CommitmentsAndContingencies", "2024-12-31", "0126", "unable_to_verify", 3)]


@pytest.mark.parametrize("fmt", ["json", "table"])
@pytest.mark.parametrize("concept,period,rule,decision,code", DECIDED, ids=[d[3] for d in DECIDED])
def test_the_exit_code_is_the_decision(concept, period, rule, decision, code, fmt, capsys) -> None:
    argv = ["audit", str(SAMPLE_XML), "--concept", concept, "--period", period, "--rule", rule, "--no-taxonomy",
            "--format", fmt]
    assert main(argv) == code
    out = capsys.readouterr().out
    assert (json.loads(out)["decision"] if fmt == "json" else decision) == decision
    if fmt == "table":
        assert decision in out


@pytest.mark.parametrize("argv,says", [
    (["--concept", "us-gaap:Asets", "--period", "2024-12-31"], "us-gaap:Assets"),  # a typo: close matches
    (["--concept", "us-gaap:Assets"], "needs both --concept and --period"),
    (["--concept", "us-gaap:Assets", "--period", "2024-12-31", "--model", "gpt-4o"], "unknown model"),
])
def test_an_error_exits_2_not_1(argv, says, capsys) -> None:
    assert main(["audit", str(SAMPLE_XML), "--no-taxonomy", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("auditflow: error: ") and says in err


@pytest.mark.parametrize("command,lines", [
    ("audit", ["0  consistent", "1  violation", "2  an error", "3  unable to verify"]),
    ("check", ["0  no findings", "1  findings", "2  an error"]),
])
def test_help_documents_the_exit_codes(command, lines, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "exit codes:" in out and all(line in out for line in lines)
