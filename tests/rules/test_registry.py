"""The rule registry: what it derives, and the meta-test that every registered rule is complete.

A rule is complete when it has its specification (docs/rules/DQC_US_NNNN.md), its own test file
(tests/rules/test_dqc_NNNN.py) and a message template for every code; nothing else lists rules, so
adding one touches exactly those three files and its module. ``problems`` says what is missing; the
last tests show that removing any one of them is caught.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from auditflow.errors import AuditflowError
from auditflow.rules import registry

REPO = Path(__file__).resolve().parents[2]


def rule_test_file(spec: registry.RuleSpec, repo: Path) -> Path:
    return repo / "tests" / "rules" / f"test_dqc_{spec.id}.py"


def problems(spec: registry.RuleSpec, *, repo: Path) -> list[str]:
    out = []
    if not (repo / spec.doc).is_file():
        out.append(f"{spec.name}: no {spec.doc}")
    tests = rule_test_file(spec, repo)
    if not tests.is_file():
        out.append(f"{spec.name}: no {tests.relative_to(repo)}")
    elif "def test_" not in tests.read_text(encoding="utf-8"):
        out.append(f"{spec.name}: {tests.relative_to(repo)} has no test")
    if not spec.messages or any(not t.strip() for t in spec.messages.values()):
        out.append(f"{spec.name}: a code without a message template")
    return out


def test_every_registered_rule_is_complete():
    assert [p for spec in registry.rules().values() for p in problems(spec, repo=REPO)] == []


def test_every_rule_test_file_names_a_registered_rule():
    files = sorted(p.stem.removeprefix("test_dqc_") for p in (REPO / "tests" / "rules").glob("test_dqc_[0-9][0-9][0-9][0-9].py"))
    assert files == list(registry.rule_ids())


@pytest.mark.parametrize("remove", ["doc", "tests", "template"])
def test_removing_any_part_of_a_rule_fails_the_meta_test(remove, tmp_path):
    spec = registry.get("0036")
    repo = REPO
    if remove in ("doc", "tests"):  # a checkout without one of the rule's files
        repo = tmp_path
        keep = rule_test_file(spec, REPO) if remove == "doc" else REPO / spec.doc
        target = repo / keep.relative_to(REPO)
        target.parent.mkdir(parents=True)
        target.write_bytes(keep.read_bytes())
    else:
        spec = replace(spec, messages={code: "" for code in spec.messages})
    assert len(problems(spec, repo=repo)) == 1


def test_rules_are_discovered_from_their_modules():
    modules = sorted(p.stem.removeprefix("dqc_") for p in (REPO / "auditflow" / "rules").glob("dqc_[0-9][0-9][0-9][0-9].py"))
    assert list(registry.rule_ids()) == modules
    for spec in registry.rules().values():
        assert spec.module == f"auditflow.rules.dqc_{spec.id}" and spec.doc == f"docs/rules/DQC_US_{spec.id}.md"
        assert all(code.startswith(f"DQC.US.{spec.id}.") for code in spec.codes)


def test_parse_rules_takes_ids_ranges_and_all():
    ids = registry.rule_ids()
    assert registry.parse_rules("all") == ids
    assert registry.parse_rules("15,DQC.US.0117, 0126") == ("0015", "0117", "0126")
    assert registry.parse_rules("126,15,15") == ("0015", "0126")
    assert registry.parse_rules("4-9") == tuple(r for r in ids if "0004" <= r <= "0009")
    assert registry.parse_rules("DQC.US.0100-DQC.US.0200") == tuple(r for r in ids if "0100" <= r <= "0200")
    for bad in ("9999", "abc", "9990-9999", ""):
        with pytest.raises(AuditflowError):
            registry.parse_rules(bad)


def test_only_the_three_agent_rules_are_offered_to_auditors():
    assert registry.agent_rules() == {"0015": "check_sign", "0117": "check_dim_consistency", "0126": "check_calc_tree"}
    assert [t.name for _, t in registry.agent_tools()] == ["check_sign", "check_calc_tree", "check_dim_consistency"]
    from auditflow.env.tools import CHECKS

    assert CHECKS == ("check_sign", "check_calc_tree", "check_dim_consistency")


def test_everything_that_lists_rules_derives_from_the_registry():
    from auditflow.cases.oracle import RULES as ORACLE_RULES
    from auditflow.eval.metrics import FAMILIES
    from auditflow.rules.runner import RULES
    from pytest_auditflow.items import RULE_MARKERS

    assert RULES == RULE_MARKERS == registry.rule_ids()
    assert FAMILIES == ORACLE_RULES == tuple(registry.agent_rules())


def test_the_checkers_refuse_a_rule_that_is_not_an_agent_rule():
    from auditflow.env.check_select import rule_view

    with pytest.raises(AuditflowError, match="not offered"):
        registry.agent_tool("0004")
    with pytest.raises(AuditflowError, match="not offered"):
        rule_view(None, "0004")
    assert registry.rule_of_tool("check_calc_tree") == "0126" and registry.rule_of_tool("find_facts") is None


def test_each_rule_knows_the_dates_its_codes_take_effect(data_root):
    assert registry.get("0004").effective_dates(data_root)["DQC.US.0004.16"] == "2016-01-01"
    assert registry.get("0118").effective_dates(data_root) == {"DQC.US.0118.9575": "2021-11-30"}
    assert registry.get("0126").effective_dates(data_root) == {"DQC.US.0126.9590": "2022-05-01"}
    for spec in registry.rules().values():  # every listed code is a date, and most codes are listed
        dates = spec.effective_dates(data_root)
        assert all(len(d) == 10 and d[4] == "-" for d in dates.values())
        assert spec.id == "0015" or dates, spec.id
