"""The HTML reports, rendered from real runs and read back in headless Chromium.

Two reports are made the way a user makes them: the suite report of ``pytest --auditflow
--auditflow-html`` over the bundled sample cases plus one case whose expectation is deliberately
wrong (a failing case, label C), and ``auditflow check FILING --html`` on a real filing of the data
root. Each is opened in Debian's ``chromium`` (headless, no network, a throwaway profile): the DOM it
dumps after the page's script ran must show the summary numbers of the run's own JSON, the failing
case's expected and actual values with the difference marked, and the drawing of the structure the
rule used; a screenshot is taken of each. Set ``AUDITFLOW_HTML_SCREENSHOTS=docs/html`` to write the
screenshots the docs show (the summary, the failing case, a filer finding) there.

Without Chromium the browser tests are skipped, saying how to install it (``.ci/run`` installs it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE_CASES = REPO / "cases" / "acme-sample.case.yaml"
SAMPLE_FILING = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
REAL_FILING = "gevi-10q-2024-03-31"  # docs/real-filings.md: two 0117 findings and one 0126
SHOTS_ENV = "AUDITFLOW_HTML_SCREENSHOTS"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync")
FAILING_CASE = """\
auditflow: 1
cases:
  - id: acme-assets-expected-off-by-one
    description: The planted DQC.US.0126 error, with an expected total that is one dollar off on purpose (a failing case).
    filing: ../samples/acme-10k-2024/xml
    tags: [sample, planted_failure]
    query: {concept: us-gaap:Assets, period: 2024-12-31, rule_hint: "0126"}
    expect:
      decision: violation
      triggered_rules: [DQC.US.0126.9590]
      reported_value: "226,150,000"
      expected_value: "216,150,001"
"""
FAILING_ID = "acme-assets-expected-off-by-one"


def run_suite(project: Path, out: Path, data_root: Path | None, *, html_option: bool = True) -> subprocess.CompletedProcess:
    """``pytest [--auditflow-html out/report.html] --auditflow-json out/results.json`` in ``project``
    (without the option, the ini's ``auditflow_html`` names the report)."""
    cmd = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", f"--rootdir={project}",
           *([f"--auditflow-html={out / 'report.html'}"] if html_option else []),
           f"--auditflow-json={out / 'results.json'}", "-W", "ignore::pytest.PytestAssertRewriteWarning", "cases"]
    if data_root is not None:
        cmd.insert(5, f"--auditflow-data-root={data_root}")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=project)


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> dict:
    """The sample cases and one failing case, run twice by the plugin (for the determinism check),
    once with ``--auditflow-html`` and once with the ini key ``auditflow_html``.

    They run in a project of their own (the sample filing and case file copied beside an ini that
    turns the plugin on with its defaults: the deterministic policy backend), so the report names
    files relative to it and does not depend on this checkout's ini.
    """
    from auditflow.dataroot import data_root_or_none

    project = tmp_path_factory.mktemp("suite")
    shutil.copytree(SAMPLE_FILING.parent, project / "samples" / SAMPLE_FILING.parent.name)
    (project / "cases").mkdir()
    sample_cases = SAMPLE_CASES.read_text(encoding="utf-8").replace("../auditflow/samples/", "../samples/")
    (project / "cases" / SAMPLE_CASES.name).write_text(sample_cases, encoding="utf-8")
    (project / "cases" / "planted-failure.case.yaml").write_text(FAILING_CASE, encoding="utf-8")
    (project / "pytest.ini").write_text("[pytest]\nauditflow = true\nauditflow_html = b/report.html\n", encoding="utf-8")
    data_root = data_root_or_none()
    for name in ("a", "b"):  # a: the command-line option (it wins over the ini); b: the ini key
        r = run_suite(project, project / name, data_root, html_option=name == "a")
        assert (project / name / "report.html").is_file(), r.stdout + r.stderr
        assert r.returncode == 1, r.stdout + r.stderr  # the planted case fails, the others pass
    return {"html": project / "a" / "report.html", "again": project / "b" / "report.html",
            "results": json.loads((project / "a" / "results.json").read_text(encoding="utf-8")),
            "data_root": data_root}


@pytest.fixture(scope="module")
def check(tmp_path_factory, data_root: Path) -> dict:
    """``auditflow check`` of a real filing, twice, each with --html."""
    root = tmp_path_factory.mktemp("check")
    out = []
    for name in ("a.html", "b.html"):
        r = subprocess.run([sys.executable, "-m", "auditflow.cli.main", "check", REAL_FILING, "--data-root",
                            str(data_root), "--format", "json", "--html", str(root / name)],
                           capture_output=True, text=True, timeout=600, cwd=REPO)
        assert r.returncode == 1, r.stderr  # findings
        out.append(r.stdout)
    return {"html": root / "a.html", "again": root / "b.html", "json": json.loads(out[0])}


# -- without a browser ---------------------------------------------------------------------------

def test_suite_report_is_byte_identical_across_runs(suite) -> None:
    first = suite["html"].read_bytes()
    assert first == suite["again"].read_bytes()
    assert b"http://" not in first.replace(b'xmlns="http://www.w3.org/2000/svg"', b"") and b"https://" not in first
    assert b"<link" not in first and b" src=" not in first  # styles and scripts inline, nothing fetched


def test_check_report_is_byte_identical_across_runs(check) -> None:
    assert check["html"].read_bytes() == check["again"].read_bytes()


def test_suite_report_renders_twice_in_process_to_the_same_text(suite) -> None:
    from auditflow.html.suite_page import render_suite

    entries = [{"key": "x::c", "config": "full", "rule": "0126", "label": "C", "passed": False,
                "verdict_right": True, "case_id": "c", "file": "x", "model": "policy", "payload": None}]
    assert render_suite(entries, title="t", settings={}) == render_suite(entries, title="t", settings={})


def test_templates_tolerate_result_fields_they_do_not_know(suite) -> None:
    """A result that grows (a prompt profile, a richer evidence path) still renders, showing the new fields."""
    from auditflow.html.suite_page import render_suite

    html = suite["html"].read_text(encoding="utf-8")
    assert '<dd data-metric="profile">' in html
    entry = {"key": "x::c", "config": "full", "rule": "0126", "label": "A", "passed": True, "verdict_right": True,
             "case_id": "c", "file": "x", "model": "m",
             "payload": {"case": {"id": "c"}, "expect": {"decision": "consistent"},
                         "actual": {"decision": "consistent"}, "mismatches": [],
                         "result": {"decision": "consistent", "profile": {"name": "terse", "sha256": "ab12cd34ef56ab"},
                                    "prompt_extra": "x",
                                    "evidence_path": [{"tool": "get_fact", "facts": [{"concept": "us-gaap:Assets",
                                                       "period": "2024-12-31", "value": "1"}], "new_field": 3}],
                                    "something_new": [1, 2]}}}
    out = render_suite([entry], title="t", settings={})
    assert '<dd data-metric="profile">terse (ab12cd34ef56); prompt_extra: x</dd>' in out
    assert "something_new" in out and "new_field" in out and "us-gaap:Assets" in out


# -- in the browser ------------------------------------------------------------------------------

def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        if path := shutil.which(name):
            return path
    pytest.skip("headless Chromium is not installed: apt-get install -y chromium (Debian's package; .ci/run "
                "installs it when missing)")


def browse(page: Path, work: Path, *, fragment: str = "", screenshot: Path | None = None,
           size: tuple[int, int] = (1100, 1300)):
    """The DOM of ``page`` after its script ran (``--dump-dom``), and a screenshot when asked."""
    import lxml.html

    url = page.resolve().as_uri() + fragment
    work.mkdir(parents=True, exist_ok=True)

    def run(*extra: str) -> str:
        profile = work / f"profile-{len(list(work.glob('profile-*')))}"
        r = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
                           capture_output=True, text=True, timeout=180)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout

    dom = lxml.html.fromstring(run("--dump-dom"))
    if screenshot is not None:
        run(f"--screenshot={screenshot}", f"--window-size={size[0]},{size[1]}", "--hide-scrollbars")
        assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        _keep(screenshot)
    return dom


def _keep(png: Path) -> None:
    """Copy a screenshot to $AUDITFLOW_HTML_SCREENSHOTS (docs), with 64 colours when pngquant is there."""
    target = os.environ.get(SHOTS_ENV)
    if not target:
        return
    dest = Path(target) / png.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if pngquant := shutil.which("pngquant"):
        subprocess.run([pngquant, "--force", "--strip", "--output", str(dest), "64", str(png)], check=True, timeout=120)
    else:
        shutil.copyfile(png, dest)


def _text(dom, xpath: str) -> str:
    found = dom.xpath(xpath)
    assert found, f"nothing at {xpath}"
    return " ".join(found[0].text_content().split())


def _pct(x: float | None) -> str:
    return "\u2013" if x is None else f"{100 * x:.1f}%"


def test_suite_report_in_chromium(suite, tmp_path: Path) -> None:
    dom = browse(suite["html"], tmp_path, screenshot=tmp_path / "html-suite-summary.png", size=(1100, 1000))
    total = suite["results"]["aggregates"]["total"]
    row = '//table[contains(@class, "summary-table")]//tr[@data-family="all"]'
    assert _text(dom, f'{row}/td[@data-metric="n"]') == str(total["n"])
    for label in "ASEC":
        assert _text(dom, f'{row}/td[@data-metric="{label}"]') == str(total[label])
    assert _text(dom, f'{row}/td[@data-metric="joint_acc"]') == _pct(total["joint_acc"])
    assert _text(dom, f'{row}/td[@data-metric="vacc"]') == _pct(total["vacc"])
    assert _text(dom, f'{row}/td[@data-metric="invalid"]') == _pct(total["invalid_rate"])
    assert _text(dom, '//b[@data-metric="joint_acc"]') == _pct(total["joint_acc"])
    for family, counts in suite["results"]["aggregates"]["by_rule"].items():
        assert _text(dom, f'//tr[@data-family="DQC.US.{family}"]/td[@data-metric="n"]') == str(counts["n"])
    cache = suite["results"]["cache"]
    assert _text(dom, '//dd[@data-metric="cache"]') == f"{cache['hits']} hits, {cache['misses']} misses, {cache['writes']} writes"
    # the case list: one row per case, the failing one marked
    rows = dom.xpath('//table[@id="case-list"]/tbody/tr')
    assert len(rows) == total["n"]
    failed = [r for r in rows if r.get("data-status") == "failed"]
    assert [r.xpath("string(td[1])").strip() for r in failed] == [FAILING_ID]
    assert failed[0].get("data-label") == "c"
    # collapsed by default
    assert not dom.xpath('//details[contains(@class, "case")][@open]')


def test_failing_case_in_chromium(suite, tmp_path: Path) -> None:
    dom = browse(suite["html"], tmp_path, fragment="#only=" + _anchor(suite, FAILING_ID),
                 screenshot=tmp_path / "html-failing-case.png", size=(1100, 1400))
    case = f'//details[@data-case="{FAILING_ID}"]'
    assert dom.xpath(f"{case}[@open]"), "the case named in the address opens"
    row = f'{case}//table[contains(@class, "compare")]//tr[@data-field="expected_value"]'
    assert _text(dom, f'{row}/td[@data-role="expected"]') == "216,150,001"
    assert _text(dom, f'{row}/td[@data-role="actual"]') == "216,150,000"
    assert "differs" in dom.xpath(row)[0].get("class")
    same = f'{case}//table[contains(@class, "compare")]//tr[@data-field="reported_value"]'
    assert "same" in dom.xpath(same)[0].get("class")
    assert _text(dom, f'{same}/td[@data-role="actual"]') == "226,150,000"
    # the drawing: the calculation tree with its children, the sum and the reported total
    tree = dom.xpath(f'{case}//figure[@data-drawing="calc-tree"]//*[local-name()="svg"]')
    assert tree, "the 0126 calculation tree is drawn"
    svg_text = " ".join(tree[0].itertext())
    for concept in ("us-gaap:AssetsCurrent", "us-gaap:PropertyPlantAndEquipmentNet", "us-gaap:Goodwill"):
        assert concept in svg_text
    assert "216,150,000" in svg_text and "226,150,000" in svg_text and "10,000,000" in svg_text
    # the rest of the section: fusion, the Senior's review, the evidence path, collapsible transcripts
    assert dom.xpath(f'{case}//table[contains(@class, "fusion")]//td[@data-score="Bel"]')
    assert dom.xpath(f'{case}//ol[contains(@class, "reviews")]/li')
    assert dom.xpath(f'{case}//ol[contains(@class, "evidence")]/li')
    assert len(dom.xpath(f'{case}//details[contains(@class, "transcript")]')) == 2


def test_other_drawings_in_chromium(suite, tmp_path: Path) -> None:
    dom = browse(suite["html"], tmp_path)
    members = dom.xpath('//details[@data-case="acme-revenue-members"]//figure[@data-drawing="member-table"]')
    assert members, "the 0117 member table is drawn"
    text = " ".join(members[0].text_content().split())
    assert "acme:WidgetsMember" in text and "150,000,000" in text and "240,500,000" in text
    if suite["data_root"] is not None:  # the 0015 case needs the concept list
        sign = dom.xpath('//details[@data-case="acme-receivable-negative"]//figure[@data-drawing="signed-fact"]')
        assert sign and "-12,500,000" in sign[0].text_content() and "2944" in sign[0].text_content()


def test_filer_report_in_chromium(check, tmp_path: Path) -> None:
    findings = check["json"]["filings"][0]["findings"]
    calc = next(f for f in findings if f["rule"] == "0126")
    anchor = f"filing-1-{REAL_FILING}-0126-f1"
    dom = browse(check["html"], tmp_path, fragment=f"#only={anchor}", screenshot=tmp_path / "html-filer-finding.png",
                 size=(1100, 1150))
    assert _text(dom, '//b[@data-metric="findings"]') == str(len(findings))
    articles = dom.xpath('//article[contains(@class, "finding")]')
    assert sorted(a.get("data-code") for a in articles) == sorted(f["code"] for f in findings)
    members = next(f for f in findings if f["rule"] == "0117" and f["reported"] == "3630")
    art = dom.xpath(f'//article[@data-code="{members["code"]}"][.//td[@data-value="reported"]="3,630"]')
    assert art, "the 0117 finding of 2024-03-31"
    assert _text(art[0], './/table[contains(@class, "finding-values")]//td[@data-value="expected"]') == "1,000"
    assert art[0].xpath('.//figure[@data-drawing="member-table"]')
    tree = dom.xpath(f'//article[@id="{anchor}"]//figure[@data-drawing="calc-tree"]//*[local-name()="svg"]')
    assert tree, "the 0126 finding's calculation tree is drawn"
    svg_text = " ".join(tree[0].itertext())
    assert all(e["concept"] in svg_text or e["concept"][:40] in svg_text for e in calc["evidence"])
    assert _text(dom, f'//article[@id="{anchor}"]//p[contains(@class, "fix")]').startswith("What to fix.")
    assert dom.xpath('//dd[@data-metric="taxonomy_year"]')


def _anchor(suite, case_id: str) -> str:
    import lxml.html

    dom = lxml.html.fromstring(suite["html"].read_bytes())
    return dom.xpath(f'//details[@data-case="{case_id}"]/@id')[0]


def test_eval_html_has_every_configuration_and_is_byte_identical(suite) -> None:
    """``auditflow eval … --html``: one summary per configuration and every case under each, twice the same bytes."""
    import lxml.html

    project = suite["html"].parents[1]
    pages = []
    for name in ("eval-a", "eval-b"):
        cmd = [sys.executable, "-m", "auditflow.cli.main", "eval", "cases", "--configs", "policy,no-fusion",
               "--out", name, "--no-charts", "--bootstrap", "50", "--jobs", "1", "--html", f"{name}/report.html"]
        if suite["data_root"] is not None:
            cmd += ["--data-root", str(suite["data_root"])]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=project)
        assert r.returncode == 0, r.stdout + r.stderr
        pages.append((project / name / "report.html").read_bytes())
    assert pages[0] == pages[1]
    dom = lxml.html.fromstring(pages[0])
    n = suite["results"]["aggregates"]["total"]["n"]
    assert [g.get("data-config") for g in dom.xpath('//div[@class="group"]')] == ["policy", "no-fusion"]
    assert len(dom.xpath('//table[@id="case-list"]/tbody/tr')) == 2 * n
    assert len(dom.xpath(f'//details[@data-case="{FAILING_ID}"]')) == 2
    assert dom.xpath(f'//details[@data-case="{FAILING_ID}"][@data-config="no-fusion"]'
                     '//figure[@data-drawing="calc-tree"]')


def test_case_list_sorts_and_filters_in_chromium(suite, tmp_path: Path) -> None:
    """The page's script: choosing "failed" hides the passed cases' rows and sections; a header sorts."""
    acting = ("<script>var f = document.querySelector('[data-filter=status]'); f.value = 'failed';"
              "f.dispatchEvent(new Event('change'));"
              "var h = document.querySelector('#case-list th[data-sort]'); h.click(); h.click();</script></body>")
    page = tmp_path / "acting.html"
    page.write_text(suite["html"].read_text(encoding="utf-8").replace("</body>", acting), encoding="utf-8")
    dom = browse(page, tmp_path)
    rows = dom.xpath('//table[@id="case-list"]/tbody/tr')
    shown = [r for r in rows if "hidden" not in r.get("class", "")]
    assert [r.get("data-status") for r in shown] == ["failed"]
    assert _text(dom, '//span[@id="shown-count"]') == "1"
    hidden_sections = dom.xpath('//details[contains(@class, "case")][contains(@class, "hidden")]')
    assert len(hidden_sections) == len(rows) - 1
    assert dom.xpath('//table[@id="case-list"]//th[1]/@aria-sort') == ["descending"]
    ids = [r.xpath("string(td[1])").strip() for r in rows]
    assert ids == sorted(ids, reverse=True)


def test_filer_report_shows_each_concepts_label_and_the_facts_place(check) -> None:
    """Beside the QName, the concept's standard label; beside the fact id, its document and line
    (docs/check-log.md), as the JSON report gives them."""
    import lxml.html

    findings = check["json"]["filings"][0]["findings"]
    dom = lxml.html.fromstring(check["html"].read_bytes())
    labelled = [f for f in findings if f.get("label")]
    assert labelled
    assert {f"({f['label']})" for f in labelled} <= set(dom.xpath('//span[@data-value="label"]/text()'))
    placed = {f"{f['document']}:{f['line']}" for f in findings if f.get("document")}
    assert placed and placed <= set(dom.xpath('//span[@data-value="where"]/text()'))
