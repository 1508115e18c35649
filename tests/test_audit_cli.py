"""``auditflow audit ... --model SPEC [--record-mode MODE]``: the plugin's LLM cache and data root.

An audit of the same query, on the same filing, as a recorded case replays that case's calls from the
cache the ini names (``cases/llm-cache`` here), with no model installed.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditflow.cli.main import main
from auditflow.llm import factory

REPO = Path(__file__).resolve().parents[1]
SAMPLE_XML = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
ASSETS = ["--concept", "us-gaap:Assets", "--period", "2024-12-31", "--rule", "0126", "--format", "json"]


def test_the_default_is_the_deterministic_policy(capsys) -> None:
    assert main(["audit", str(SAMPLE_XML), *ASSETS, "--no-taxonomy"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "violation"


@pytest.mark.parametrize("spec,says", [("gpt-4o", "unknown model 'gpt-4o'"),
                                       ("local:qwen2.5-coder-7b", "unknown local model 'qwen2.5-coder-7b'"),
                                       ("hf:foo/bar", "unknown model 'hf:foo/bar' for a replay")])
def test_an_unknown_model_is_an_error_before_anything_loads(spec, says, capsys, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    assert main(["audit", *ASSETS, "--model", spec]) == 2
    assert says in capsys.readouterr().err


def test_a_recorded_case_query_replays_from_the_plugins_cache(data_root, capsys, monkeypatch) -> None:
    """cases/acme-sample.case.yaml::acme-assets-calc, audited from the command line: zero model calls."""
    monkeypatch.setattr(factory, "inner_model", lambda spec: pytest.fail("the replay reached the model"))
    monkeypatch.chdir(REPO)
    code = main(["audit", "auditflow/samples/acme-10k-2024/xml", *ASSETS, "--model", "local:qwen2.5-coder-1.5b",
                 "--data-root", str(data_root)])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert (result["decision"], result["triggered_rules"]) == ("violation", ["DQC.US.0126.9590"])


def test_the_backend_option_still_works(capsys) -> None:
    assert main(["audit", str(SAMPLE_XML), *ASSETS, "--backend", "policy"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"] == "violation"
