"""The bundled sample through the user's door: ``auditflow inspect`` and ``auditflow check``."""
from __future__ import annotations

import json

import pytest
from openpyxl import load_workbook

from auditflow.graphs.factory import SAMPLE
from auditflow.cli.main import main
from auditflow.rules.runner import RULES
from auditflow.xbrl.loader import load_filing

XML_SAMPLE = SAMPLE.parent / "xml"


def _fact_set(filing):
    out = set()
    for f in filing.facts:
        ctx = filing.contexts[f.context_id]
        unit = filing.units.get(f.unit_id) if f.unit_id else None
        out.add((f.concept, ctx.period, ctx.dimensions, (unit.numerators, unit.denominators) if unit else None, f.value, f.decimals))
    return out


def test_sample_inline_and_xml_forms_report_the_same_facts():
    inline, xml = load_filing(SAMPLE), load_filing(XML_SAMPLE)
    assert inline.is_inline and not xml.is_inline
    assert len(inline.facts) == len(xml.facts) == 65
    assert _fact_set(inline) == _fact_set(xml)


def run_json(capsys, *argv) -> tuple[int, dict]:
    """The exit code and the JSON output; for ``check`` (which always lists filings) the one filing's report."""
    code = main(list(argv))
    doc = json.loads(capsys.readouterr().out)
    if argv[0] == "check":
        assert list(doc) == ["filings"] and len(doc["filings"]) == 1
        doc = doc["filings"][0]
    return code, doc


def test_check_json_has_one_shape_for_one_filing_or_several(capsys, data_root):
    args = ("check", "--format", "json", "--data-root", str(data_root), "--no-taxonomy")
    main([*args, str(SAMPLE)])
    one = json.loads(capsys.readouterr().out)
    main([*args, str(SAMPLE), str(XML_SAMPLE)])
    two = json.loads(capsys.readouterr().out)
    assert list(one) == list(two) == ["filings"] and (len(one["filings"]), len(two["filings"])) == (1, 2)
    assert two["filings"][0] == one["filings"][0]


def test_check_finds_exactly_the_planted_errors(capsys, data_root):
    code, doc = run_json(capsys, "check", str(SAMPLE), "--format", "json", "--data-root", str(data_root), "--no-taxonomy")
    assert code == 1
    got = {(f["code"], f["concept"], f["reported"], f["expected"]) for f in doc["findings"]}
    assert got == {
        ("DQC.US.0015.2944", "us-gaap:AccountsReceivableNetCurrent", "-12500000", "12500000"),
        ("DQC.US.0126.9590", "us-gaap:Assets", "226150000", "216150000"),
    }
    assert doc["checked"]["0117"] >= 1 and doc["checked"]["0126"] >= 1
    assert set(doc["not_applicable"]) == set(RULES)  # every registered rule ran (the default is all)
    assets = next(f for f in doc["findings"] if f["code"].startswith("DQC.US.0126"))
    assert assets["tolerance"] == "4000"
    assert [e["value"] for e in assets["evidence"]] == ["70750000", "120400000", "25000000"]


def test_check_is_deterministic_and_exit_zero(capsys, data_root):
    args = ("check", str(SAMPLE), "--format", "json", "--data-root", str(data_root), "--no-taxonomy")
    _, first = run_json(capsys, *args)
    code, second = run_json(capsys, *args, "--exit-zero")
    assert code == 0 and first == second


def test_check_without_data_root_says_0015_did_not_run(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("AUDITFLOW_DATA_ROOT", str(tmp_path / "absent"))
    code = main(["check", str(SAMPLE), "--format", "json", "--no-taxonomy"])
    assert code == 2  # an explicit data root that does not exist is an error, not a silent fallback
    assert "absent" in capsys.readouterr().err


def test_check_writes_an_excel_workpaper(capsys, data_root, tmp_path):
    out = tmp_path / "wp.xlsx"
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--xlsx", str(out)])
    wb = load_workbook(out)
    summary = list(wb["Summary"].iter_rows(values_only=True))[1:]
    with_findings = [row[1] for row in summary if row[2]]
    # one sheet per rule that has findings, in rule order (then the filing's warnings, if any)
    assert [n for n in wb.sheetnames if n != "Warnings"] == ["Summary", *with_findings]
    assert {"DQC.US.0015", "DQC.US.0126"} <= set(with_findings) and "DQC.US.0117" not in with_findings
    rows = list(wb["DQC.US.0126"].iter_rows(values_only=True))
    col = {name: i for i, name in enumerate(rows[0])}
    assert (rows[1][col["code"]], rows[1][col["reported"]], rows[1][col["expected"]]) == (
        "DQC.US.0126.9590", 226150000, 216150000)
    assert [r[col["code"]] for r in rows[2:5]] == ["evidence"] * 3


def test_check_table_output_names_the_findings(capsys, data_root):
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy"])
    out = capsys.readouterr().out
    assert "DQC.US.0126.9590" in out and "AccountsReceivableNetCurrent" in out


def test_missing_filing_exits_2_with_a_clear_message(capsys):
    assert main(["check", "no-such-filing", "--no-taxonomy"]) == 2
    assert "no such filing" in capsys.readouterr().err


def test_unknown_rule_is_an_error(capsys):
    assert main(["check", "--rules", "0999", "--no-taxonomy"]) == 2
    assert "unknown rule" in capsys.readouterr().err


def test_inspect_facts_json_shape(capsys):
    code, doc = run_json(capsys, "inspect", str(SAMPLE), "--facts", "--format", "json", "--no-taxonomy")
    assert code == 0
    assert doc["counts"]["facts"] == 65 and doc["counts"]["hypercubes"] >= 1
    ar = [f for f in doc["facts"] if f["concept"] == "us-gaap:AccountsReceivableNetCurrent" and f["period"] == {"instant": "2024-12-31"}]
    assert ar and ar[0]["value"] == "-12500000" and ar[0]["decimals"] == "-3" and ar[0]["unit"] == "USD"
    rev = [f for f in doc["facts"] if f["dimensions"]]
    assert any(f["dimensions"] == {"srt:ProductOrServiceAxis": "acme:WidgetsMember"} for f in rev)
