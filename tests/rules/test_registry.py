"""The rule registry: what it derives, and the meta-test that every registered rule is complete.

A rule is complete when it has its specification (docs/rules/DQC_US_NNNN.md), a conformance case
(tests/rules/test_dqc_more_rules.py CONFORMANCE), a message template for every code, and a row in
the README's rule table. ``problems`` says what is missing; the last tests show that removing any
one of the four is caught.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from auditflow.errors import AuditflowError
from auditflow.rules import registry

from test_dqc_more_rules import CONFORMANCE

REPO = Path(__file__).resolve().parents[2]


def readme_rules(text: str) -> set[str]:
    """Rule ids with a row in the README's rule table (``| DQC.US.NNNN | ...``)."""
    return set(re.findall(r"^\| DQC\.US\.(\d{4}) \|", text, re.MULTILINE))


def problems(spec: registry.RuleSpec, *, repo: Path, conformance: dict, readme: str) -> list[str]:
    out = []
    if not (repo / spec.doc).is_file():
        out.append(f"{spec.name}: no {spec.doc}")
    if spec.id not in conformance:
        out.append(f"{spec.name}: no conformance case")
    if not spec.messages or any(not t.strip() for t in spec.messages.values()):
        out.append(f"{spec.name}: a code without a message template")
    if spec.id not in readme_rules(readme):
        out.append(f"{spec.name}: no row in the README's rule table")
    return out


def test_every_registered_rule_is_complete():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [p for spec in registry.rules().values()
               for p in problems(spec, repo=REPO, conformance=CONFORMANCE, readme=readme)]
    assert missing == []
    assert readme_rules(readme) == set(registry.rule_ids())  # and no row for a rule that does not exist
    rows = re.findall(r"^\| DQC\.US\.(\d{4}) \|", readme, re.MULTILINE)
    assert len(rows) == len(set(rows)) and rows == sorted(rows)  # one row per rule, in id order


@pytest.mark.parametrize("remove", ["doc", "conformance", "template", "readme"])
def test_removing_any_part_of_a_rule_fails_the_meta_test(remove, tmp_path):
    spec = registry.get("0036")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    repo, conformance = REPO, dict(CONFORMANCE)
    if remove == "doc":
        repo = tmp_path  # a checkout without docs/rules/DQC_US_0036.md
    elif remove == "conformance":
        del conformance["0036"]
    elif remove == "template":
        spec = replace(spec, messages={code: "" for code in spec.messages})
    else:
        readme = "\n".join(line for line in readme.splitlines() if not line.startswith("| DQC.US.0036 |"))
    assert len(problems(spec, repo=repo, conformance=conformance, readme=readme)) == 1


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
