"""``auditflow check --format log`` and what every finding carries for the filer (docs/check-log.md):
the level the rule gives its code, the code, the message, the concept's label, the rule version worded
one way, and the document and line of the fact; the loader's warnings as ``[WARNING]`` lines."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from lxml import etree

from auditflow.cli.check_log import log_lines
from auditflow.cli.main import main
from auditflow.graphs.factory import SAMPLE, shared_environment
from auditflow.rules import registry
from auditflow.rules.labels import STANDARD_LABEL, standard_labels
from auditflow.rules.runner import run_rules
from auditflow.xbrl.model import Label, Warning_
from auditflow.xbrl.qname import QName

# [LEVEL] [code] message (concept: qname "label"; rule version: ...) - where
LINE = re.compile(r'^\[(ERROR|WARNING)\] \[([^\]]+)\] (.+?)(?: \((?:concept: (\S+)(?: "([^"]*)")?; )?'
                  r'rule version: ([^)]*(?:\([^)]*\))?)\))? - (\S+)$')
REAL = "filings-rolled/bxp-10q-2025-06-30"  # an instance with one fact per line and findings of several rules
XLINK = "{http://www.w3.org/1999/xlink}"


def parsed(line: str) -> dict:
    m = LINE.match(line)
    assert m, line
    return dict(zip(("level", "code", "message", "concept", "label", "version", "where"), m.groups()))


def log_of(capsys, *args: str) -> list[str]:
    main(["check", *args, "--format", "log", "--exit-zero"])
    return capsys.readouterr().out.splitlines()


def test_every_line_has_level_code_where_and_finding_lines_the_version(capsys, data_root):
    lines = [parsed(line) for line in log_of(capsys, str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy")]
    findings = [x for x in lines if x["level"] == "ERROR"]
    assert [x["code"] for x in findings] == ["DQC.US.0015.2944", "DQC.US.0126.9590"]
    for x in findings:
        assert x["version"] == registry.get(x["code"].split(".")[2]).version_text
        assert re.fullmatch(r"acme-20241231\.htm:\d+", x["where"]), x  # the file in the folder, not the folder
        assert x["concept"].startswith("us-gaap:")
    assert findings[0]["label"] == "Accounts receivable, net"  # the filer's standard label


def test_the_loaders_warnings_are_warning_lines(capsys, data_root, tmp_path):
    """A filing whose load records a warning (a numeric fact whose value is NaN) logs it with its line."""
    src = (SAMPLE.parent / "xml" / "acme-20241231.xml").read_text(encoding="utf-8")
    bad = re.sub(r'(<us-gaap:AccountsReceivableNetCurrent\b[^>]*>)[^<]*', r"\1NaN", src, count=1)
    assert bad != src
    folder = tmp_path / "acme"
    folder.mkdir()
    for p in (SAMPLE.parent / "xml").iterdir():
        (folder / p.name).write_text(bad if p.suffix == ".xml" and p.name == "acme-20241231.xml"
                                     else p.read_text(encoding="utf-8"), encoding="utf-8")
    lines = [parsed(x) for x in log_of(capsys, str(folder), "--data-root", str(data_root), "--no-taxonomy")]
    loader = [x for x in lines if x["level"] == "WARNING" and not x["code"].startswith("DQC.")]
    assert loader, lines
    line_no = next(i for i, text in enumerate(bad.splitlines(), 1) if ">NaN<" in text)
    assert any(x["where"] == f"acme-20241231.xml:{line_no}" for x in loader), loader
    assert lines.index(loader[0]) == 0  # logged while loading: before the rules' messages


def test_a_warning_level_rule_logs_warning_lines_and_json_says_severity(capsys, data_root, monkeypatch):
    spec = registry.get("0015")
    monkeypatch.setitem(registry._REGISTRY, "0015", replace(spec, level=registry.Level.WARNING))
    lines = [parsed(x) for x in log_of(capsys, str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy",
                                       "--rules", "15")]
    assert [x["level"] for x in lines if x["code"].startswith("DQC.US.0015.")] == ["WARNING"]
    main(["check", str(SAMPLE), "--data-root", str(data_root), "--no-taxonomy", "--rules", "15,126", "--format",
          "json", "--exit-zero"])
    found = json.loads(capsys.readouterr().out)["filings"][0]["findings"]
    assert {f["code"]: f["severity"] for f in found} == {"DQC.US.0015.2944": "warning", "DQC.US.0126.9590": "error"}


def test_a_facts_line_is_its_line_in_the_instance(data_root):
    """On a real filing, every finding's document and line are where its fact's element is."""
    env = shared_environment(data_root / REAL)
    report = run_rules(env, data_root=data_root)
    located = [f for f in report.findings if f.fact_id and not f.fact_id.startswith("#")]
    assert len(located) >= 5
    for f in located:
        text = (data_root / REAL / f.document).read_text(encoding="utf-8").splitlines()
        assert f'id="{f.fact_id}"' in text[f.line - 1], (f.code, f.fact_id, f.line)
    lines = [parsed(x) for x in log_lines(report)]
    assert {f"{f.document}:{f.line}" for f in located} <= {x["where"] for x in lines}


def filer_standard_labels(lab: Path) -> dict[str, set[str]]:
    """Concept local name -> its standard-role label texts in a label linkbase, read independently."""
    root = etree.parse(str(lab)).getroot()
    locs = {e.get(f"{XLINK}label"): e.get(f"{XLINK}href").split("#")[-1].split("_", 1)[-1]
            for e in root.iter("{http://www.xbrl.org/2003/linkbase}loc")}
    texts: dict[str, set[str]] = {}
    for e in root.iter("{http://www.xbrl.org/2003/linkbase}label"):
        if e.get(f"{XLINK}role") == STANDARD_LABEL:
            texts.setdefault(e.get(f"{XLINK}label"), set()).add(" ".join((e.text or "").split()))
    out: dict[str, set[str]] = {}
    for arc in root.iter("{http://www.xbrl.org/2003/linkbase}labelArc"):
        concept = locs.get(arc.get(f"{XLINK}from"))
        if concept:
            out.setdefault(concept, set()).update(texts.get(arc.get(f"{XLINK}to"), ()))
    return out


def test_findings_carry_the_filers_standard_label_on_a_real_filing(capsys, data_root):
    main(["check", str(data_root / REAL), "--data-root", str(data_root), "--no-taxonomy", "--format", "json", "--exit-zero"])
    findings = json.loads(capsys.readouterr().out)["filings"][0]["findings"]
    expected = filer_standard_labels(data_root / REAL / "bxp-20261231_lab.xml")
    labelled = [f for f in findings if f["concept"] and f["concept"].split(":")[-1] in expected]
    assert labelled and all("label" in f for f in findings)
    for f in labelled:
        assert f["label"] in expected[f["concept"].split(":")[-1]], f
    assert any(f["label"] == "Liabilities and Equity" for f in labelled)


def test_a_concept_without_a_filer_label_takes_the_taxonomys():
    ours, theirs, none = (QName("http://fasb.org/us-gaap/2024", n, "us-gaap") for n in ("Assets", "Revenues", "Other"))

    class Taxonomy:
        def labels(self, q):
            return {STANDARD_LABEL: "Revenues (taxonomy)"} if q == theirs else {}

    filing = SimpleNamespace(labels=[Label(ours, STANDARD_LABEL, "de", "Aktiva"),
                                     Label(ours, STANDARD_LABEL, "en-US", "Total  assets"),
                                     Label(ours, "http://www.xbrl.org/2003/role/terseLabel", "en-US", "Assets")])
    env = SimpleNamespace(filing=filing, taxonomy=Taxonomy(), bridges={})
    assert standard_labels(env, [ours, theirs, none, None]) == {ours: "Total assets", theirs: "Revenues (taxonomy)"}
    assert standard_labels(SimpleNamespace(filing=filing, taxonomy=None, bridges={}), [theirs]) == {}


@pytest.mark.parametrize("warning, where", [(Warning_("x", "m", "doc.htm", 7), "doc.htm:7"),
                                            (Warning_("x", "m", "doc.htm"), "doc.htm"),
                                            (Warning_("x", "m"), "acme")])
def test_where_a_warning_is(warning, where):
    from auditflow.cli.check_log import loader_line

    assert parsed(loader_line(warning, "/some/folder/acme"))["where"] == where
