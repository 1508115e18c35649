"""The drawing models, from hand-made observations and findings (no browser, no filing)."""
from __future__ import annotations

from auditflow.html.drawing import drawing_from_finding, drawing_from_result


def _result(*steps, fact=None, query=None) -> dict:
    calls = [{"kind": "tool_call", "tool_call": {"tool": tool, "arguments": {}, "result": res}} for tool, res in steps]
    out = {"query": query or {}, "transcripts": [{"role": "compliance", "rounds": [calls]}]}
    if fact is not None:
        out["fact"] = fact
    return out


def test_calc_tree_of_a_component_draws_the_total_and_marks_the_component() -> None:
    obs = {"rule": "0126", "fact": "F1", "total": "F2", "outcome": "violation", "code": "DQC.US.0126.9590",
           "reported": "300", "expected": "250", "tolerance": "1", "statement": "Balance",
           "evidence": [{"fact": "F1", "concept": "x:A", "value": "100", "weight": "1"},
                        {"fact": "F3", "concept": "x:B", "value": "-150", "weight": "-1"}],
           "note": "this fact is a component of the checked total F2"}
    got = {"fact": "F2", "concept": "x:Total", "period": "2024-12-31", "value": "300"}
    d = drawing_from_result(_result(("get_fact", got), ("check_calc_tree", obs)), "0126")
    assert d["kind"] == "calc" and d["total"]["concept"] == "x:Total" and d["total"]["fact"] == "F2"
    assert [(e["concept"], e["weight"], e["contribution"], e["focus"]) for e in d["entries"]] == [
        ("x:A", "+1 \u00d7", "100", True), ("x:B", "\u22121 \u00d7", "150", False)]
    assert (d["reported"], d["expected"], d["difference"], d["exceeds"]) == ("300", "250", "50", True)
    assert len(d["svg"]["children"]) == 2 and d["svg"]["height"] > d["svg"]["reported_y"]


def test_the_answers_fact_picks_the_observation() -> None:
    """With a question the auditors find the fact: the observation of the result's fact is drawn."""
    other = {"rule": "0117", "fact": "F1", "outcome": "consistent", "reported": "5", "expected": "5", "evidence": []}
    mine = {"rule": "0117", "fact": "F4", "outcome": "consistent", "reported": "9", "expected": "9",
            "evidence": [{"fact": "F5", "member": "x:AMember", "value": "9"}]}
    seen = {"facts": [{"fact": "F1", "concept": "x:Other", "period": "2024"},
                      {"fact": "F4", "concept": "x:Rev", "period": "2023"},
                      {"fact": "F5", "concept": "x:Rev", "period": "2023", "dimensions": {"x:KindAxis": "x:AMember"}}]}
    d = drawing_from_result(_result(("search_facts", seen), ("check_dim_consistency", other),
                                    ("check_dim_consistency", mine), fact={"concept": "x:Rev", "period": "2023"}), "0117")
    assert d["kind"] == "members" and d["total"]["fact"] == "F4" and d["reported"] == "9"
    assert d["axis"] == "x:KindAxis"  # from the member fact's dimensions


def test_sign_check_shows_the_list_entry_from_get_concept() -> None:
    concept = {"concept": "x:AR", "rules": {"0015": "on the DQC 0015 non-negative list (2024): must not be "
                                                      "negative (DQC.US.0015.2944)"}}
    obs = {"rule": "0015", "fact": "F1", "outcome": "violation", "code": "DQC.US.0015.2944", "reported": "-5",
           "expected": "5", "tolerance": "0", "evidence": [{"fact": "F1", "concept": "x:AR", "value": "-5"}]}
    d = drawing_from_result(_result(("get_concept", concept), ("check_sign", obs)), "0015")
    assert d["kind"] == "sign" and d["list_entry"]["element"] == "2944"
    assert d["list_entry"]["text"] == concept["rules"]["0015"]  # the rule's own line, shown whole
    assert d["entries"][0]["negative"] and d["differs"]


def test_a_member_table_takes_its_axis_from_the_members_the_auditor_was_shown() -> None:
    """The observation names members, not their axis; get_dimension_members showed the axis."""
    tables = {"cubes": [{"table": "x:T", "axes": [{"axis": "x:ClassAxis", "members": ["x:AMember", "x:BMember"]},
                                                  {"axis": "x:OtherAxis", "members": ["x:CMember"]}]}]}
    obs = {"rule": "0117", "fact": "F1", "outcome": "violation", "code": "DQC.US.0117.9574", "reported": "5",
           "expected": "3", "tolerance": "2", "reason": "the members of x:ClassAxis add up to 3, not 5",
           "evidence": [{"fact": "F2", "concept": "x:S", "value": "1", "member": "x:AMember"},
                        {"fact": "F3", "concept": "x:S", "value": "2", "member": "x:BMember"}]}
    d = drawing_from_result(_result(("get_dimension_members", tables), ("check_dim_consistency", obs)), "0117")
    assert d["kind"] == "members" and d["axis"] == "x:ClassAxis"
    # without that table the drawing does not guess from the words of the reason
    d = drawing_from_result(_result(("check_dim_consistency", obs)), "0117")
    assert d["axis"] == ""


def test_no_checker_no_drawing() -> None:
    assert drawing_from_result({"transcripts": []}, "0126") is None


def test_findings() -> None:
    member = {"rule": "0117", "code": "DQC.US.0117.9574", "concept": "x:Stock", "fact_id": "f1",
              "period": {"instant": "2024-03-31"}, "dimensions": {}, "reported": "3630", "expected": "1000",
              "tolerance": "2", "role": "Balance",
              "evidence": [{"axis": "x:ClassAxis", "member": "x:PrefMember", "fact_id": "f2", "value": "1000",
                            "concept": "x:Stock"}]}
    d = drawing_from_finding(member)
    assert d["kind"] == "members" and d["axis"] == "x:ClassAxis" and d["total"]["period"] == "2024-03-31"
    assert (d["reported"], d["expected"], d["difference"]) == ("3,630", "1,000", "2,630")
    other = drawing_from_finding({"rule": "0004", "code": "DQC.US.0004.16", "reported": "1", "expected": "2",
                                  "evidence": [{"concept": "x:Assets", "value": "1"}]})
    assert other["kind"] == "evidence" and other["entries"][0]["concept"] == "x:Assets"


def test_model_text_is_escaped() -> None:
    """Model output and observations are untrusted text: no markup gets through, in content or attributes."""
    from auditflow.html.suite_page import render_suite

    evil = '</pre><script>alert("x")</script>'
    step = {"kind": "message", "content": evil,
            "tool_call": {"tool": "get_fact", "arguments": {"fact": evil}, "result": {"note": evil}}}
    entry = {"key": "f::<blink>", "config": "full", "rule": "0126", "label": "S", "passed": False, "verdict_right": False,
             "case_id": '"><img src=x>', "file": "f", "model": "m",
             "payload": {"case": {"id": "c", "tags": ['"><marquee>']}, "expect": {"decision": "violation"},
                         "actual": {"decision": evil}, "mismatches": [],
                         "result": {"decision": "violation", "transcripts": [{"role": "r", "rounds": [[step]]}]}}}
    html = render_suite([entry], title="t", settings={})
    assert "<script>alert" not in html and "<img" not in html and "<marquee>" not in html and "<blink>" not in html
    assert "&lt;script&gt;alert" in html
