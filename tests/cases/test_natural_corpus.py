"""The ``cases/natural`` corpus and its held-back split: questions worded as people type them (issue 46).

What must hold for the corpus to measure what it claims: every case's exact twin (the same case with
concept, period and members given exactly) resolves in its filing and the checkers answer it with the
case's expectation; the files are what the command in the README writes, byte for byte; the phrasing
spreads over the forms the README counts; no question reads as the generator's template questions of
``cases/hard``; the held-back split shares no audited fact with the main one. The calendar words are
checked on real filings whose fiscal year is not the calendar year (Apple, Upexi, Medinotec).
"""
from __future__ import annotations

import datetime as dt
import random
import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

from auditflow.cases import load_case_file
from auditflow.cases.exclude import facts_audited_by
from auditflow.cases.filings import case_environment, resolve_filing
from auditflow.graphs.factory import shared_environment
from auditflow.cases.model import Expectation
from auditflow.cases.natural import template_like
from auditflow.cases.natural_periods import FiscalCalendar, fiscal_calendar, period_wordings
from auditflow.cases.natural_words import company, concept_wordings, shortened, taken_phrases
from auditflow.cases.oracle import checker_answer
from auditflow.cli.main import main
from auditflow.env.names import resolve_concept, resolve_dimensions
from auditflow.env.query import AuditQuery, parse_period
from auditflow.env.tool_base import ToolContext
from auditflow.mutations import exact_duplicates

REPO = Path(__file__).resolve().parents[2]
SPLITS = ("natural", "natural-holdout")


def _cases(split: str):
    return [c for path in sorted((REPO / "cases" / split).glob("*.case.yaml")) for c in load_case_file(path)]


@pytest.fixture(scope="module")
def corpus():
    return {split: _cases(split) for split in SPLITS}


def _env(data_root: Path, name: str):
    return shared_environment(resolve_filing(name, case_dir=REPO, data_root=data_root))


# -- the committed files -----------------------------------------------------------------------------

def readme_commands() -> list[list[str]]:
    """The `auditflow cases generate` commands of cases/natural/README.md, as argument lists."""
    text = (REPO / "cases" / "natural" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
    joined = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    return [shlex.split(line)[1:] for line in joined if line.startswith("auditflow cases generate")]


@pytest.mark.slow
def test_the_readme_commands_regenerate_the_committed_files_byte_for_byte(data_root: Path, tmp_path: Path,
                                                                          monkeypatch, capsys) -> None:
    commands = readme_commands()
    assert [cmd[cmd.index("--out") + 1] for cmd in commands] == ["cases/natural", "cases/natural-holdout"]
    monkeypatch.chdir(REPO)  # --exclude cases/natural is named relative to the checkout, as in the README
    for argv in commands:
        split = argv[argv.index("--out") + 1]
        out = tmp_path / Path(split).name
        argv = [*argv[:argv.index("--out")], "--out", str(out), *argv[argv.index("--out") + 2:],
                "--data-root", str(data_root)]
        assert main(argv) == 0, capsys.readouterr().err
        committed = {p.name: p.read_text(encoding="utf-8") for p in sorted((REPO / split).glob("*.case.yaml"))}
        made = {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.case.yaml"))}
        assert sorted(made) == sorted(committed)
        for name, text in made.items():  # the schema line is relative to where the file is written
            assert text.split("\n", 1)[1] == committed[name].split("\n", 1)[1], name
            assert committed[name].startswith("# yaml-language-server: $schema=../../auditflow/cases/case-schema-v2.json\n")


def test_the_corpus_has_its_size_spread_and_mix(corpus) -> None:
    main_split, held = corpus["natural"], corpus["natural-holdout"]
    assert len(main_split) >= 120 and len({c.filing for c in main_split}) >= 15
    assert len(held) >= 40
    for cases in (main_split, held):
        n = len(cases)
        assert len({c.id for c in cases}) == n
        decisions = Counter(c.expect.decision for c in cases)
        assert 3 * decisions["consistent"] >= n - 3 and decisions["violation"] >= n / 2, decisions
        assert decisions["unable_to_verify"] >= 3  # errors no rule covers: a removed total
        assert all(c.query.form == "text" and c.expect.fact is not None and c.query.rule_hint is None for c in cases)
        assert all(("injected" in c.tags) == bool(c.inject) for c in cases)
    tags = Counter(t for c in main_split for t in c.tags)
    for family in ("question", "noun", "shorthand", "request"):
        assert tags[f"phrasing_{family}"] >= 15, family
    for style in ("fiscal_year", "calendar_year", "fiscal_quarter", "calendar_quarter", "month_quarter",
                  "year_to_date", "dates", "instant_date", "balance_sheet", "year_end", "quarter_end"):
        assert tags[f"period_{style}"] >= 1, style
    assert sum(tags[f"period_{s}"] for s in ("fiscal_quarter", "calendar_quarter", "month_quarter")) >= 5
    assert tags["period_year_to_date"] >= 20 and tags["period_fiscal_year"] + tags["period_calendar_year"] >= 20
    for source in ("filer", "short", "synonym"):
        assert tags[f"label_{source}"] >= 15, source
    assert sum(1 for c in main_split if c.expect.fact.dimensions) >= 15  # segment and product members


def test_no_question_reads_as_a_template_question_of_cases_hard(corpus) -> None:
    hard = [c.query.text for c in _cases("hard") if c.query.form == "text"]
    assert hard and all(template_like(t) for t in hard)  # the guard recognises every template question
    texts = [c.query.text for split in SPLITS for c in corpus[split]]
    assert [t for t in texts if template_like(t)] == []
    assert len(set(texts)) >= 0.95 * len(texts)


def test_the_held_back_split_shares_no_fact_with_the_main_one() -> None:
    main_facts = facts_audited_by([REPO / "cases" / "natural"])
    held_facts = facts_audited_by([REPO / "cases" / "natural-holdout"])
    assert len(main_facts) >= 110 and len(held_facts) >= 38 and not main_facts & held_facts


@pytest.mark.slow
@pytest.mark.parametrize("split", SPLITS)
def test_every_exact_twin_resolves_and_the_checkers_answer_it_with_the_expectation(corpus, split: str,
                                                                                    data_root: Path) -> None:
    """The twin is the case asked with concept, period and members given exactly: its fact exists (an
    exact duplicate counts), and the checkers' answer on it, in the case's environment, is the case's
    expectation. The question the case asks is then a wording of that fact, and nothing else decides."""
    for case in corpus[split]:
        env = case_environment(case, data_root=data_root)
        f = case.expect.fact
        ctx = ToolContext(env)
        concept = resolve_concept(ctx, f.concept)
        facts = env.facts(concept, period=parse_period(f.period), dimensions=resolve_dimensions(ctx, dict(f.dimensions)))
        exact = [x for x in facts if len(env.filing.contexts[x.context_id].dimensions) == len(f.dimensions)]
        assert exact, case.id
        twin = AuditQuery(case.filing, f.concept, f.period, tuple(f.dimensions))
        answer = checker_answer(env, twin, data_root=data_root)
        assert answer.focus in {d.key for d in exact_duplicates(env.filing, exact[0])}, case.id
        e: Expectation = case.expect
        got = (answer.decision, tuple(answer.triggered_rules), answer.reported_value, answer.expected_value)
        assert got == (e.decision, tuple(e.triggered_rules), e.reported_value, e.expected_value), case.id


@pytest.mark.parametrize("split", SPLITS)
def test_each_period_wording_fits_the_period_it_names(corpus, split: str, data_root: Path) -> None:
    """Read back from the case, independently of how the words were made: a year-to-date wording names
    a six- or nine-month span from the fiscal year's start, a quarter three months, a year twelve, a
    year-end or quarter-end a balance at one; calendar wording only for a calendar-year filer; and a
    fiscal or calendar wording names the fiscal year the period ends in (as 2023, FY23 or '23)."""
    calendars = {}
    for case in corpus[split]:
        style = next(t for t in case.tags if t.startswith("period_")).removeprefix("period_")
        if case.filing not in calendars:
            calendars[case.filing] = fiscal_calendar(_env(data_root, case.filing).filing)
        cal, p = calendars[case.filing], parse_period(case.expect.fact.period)
        months = None if p.start is None else round(((p.end - p.start).days + 1) / 30.44)
        fy_start = p.start is not None and cal.quarter(p.start - dt.timedelta(days=1)) == 4
        expected = {"year_to_date": months in (6, 9) and fy_start, "fiscal_year": months == 12 and fy_start,
                    "calendar_year": months == 12 and fy_start and cal.calendar,
                    "fiscal_quarter": months == 3 and cal.quarter(p.end) is not None,
                    "calendar_quarter": months == 3 and cal.calendar, "month_quarter": months == 3,
                    "year_end": p.start is None and cal.quarter(p.end) == 4,
                    "quarter_end": p.start is None and cal.quarter(p.end) in (1, 2, 3),
                    "balance_sheet": p.start is None, "instant_date": p.start is None, "dates": p.start is not None}
        assert expected[style], (case.id, style, case.query.text)
        if style in ("year_to_date", "fiscal_year", "calendar_year", "fiscal_quarter", "calendar_quarter",
                     "year_end", "quarter_end"):
            fy = cal.fiscal_year(p.end)
            assert re.search(rf"(?<!\d)({fy}|{fy % 100:02d})(?!\d)", case.query.text), (case.id, case.query.text)


# -- the words ---------------------------------------------------------------------------------------

def test_the_fiscal_calendar_is_read_from_the_filer_s_own_dei_facts(data_root: Path) -> None:
    aapl = fiscal_calendar(_env(data_root, "aapl-10q-2023-07-01").filing)
    assert aapl == FiscalCalendar(9, 0, True) and not aapl.calendar
    assert (aapl.fiscal_year(dt.date(2023, 7, 1)), aapl.quarter(dt.date(2023, 7, 1))) == (2023, 3)  # a 52-week Saturday
    assert (aapl.fiscal_year(dt.date(2022, 9, 24)), aapl.quarter(dt.date(2022, 9, 24))) == (2022, 4)
    upxi = fiscal_calendar(_env(data_root, "upxi-10q-2023-09-30").filing)  # June year-end: fiscal 2024's Q1
    assert (upxi.fiscal_year(dt.date(2023, 9, 30)), upxi.quarter(dt.date(2023, 9, 30))) == (2024, 1)
    mdnc = fiscal_calendar(_env(data_root, "mdnc-10k-2025-02-28").filing)
    assert (mdnc.fye_month, mdnc.fiscal_year(dt.date(2025, 2, 28)), mdnc.quarter(dt.date(2025, 2, 28))) == (2, 2025, 4)
    assert fiscal_calendar(_env(data_root, "tsla-10q-2024-06-30").filing).calendar


def _phrases(period: str, cal: FiscalCalendar) -> set[str]:
    return {w.phrase for seed in range(12) for w in period_wordings(parse_period(period), cal, random.Random(seed))}


def test_period_words_name_years_quarters_halves_and_year_to_date_spans(data_root: Path) -> None:
    aapl = fiscal_calendar(_env(data_root, "aapl-10q-2023-07-01").filing)
    nine = _phrases("2022-09-25..2023-07-01", aapl)
    assert "in the first nine months of fiscal 2023" in nine
    assert not any(p == "in the first nine months of 2023" for p in nine)  # a non-calendar year says "fiscal"
    quarter = _phrases("2023-04-02..2023-07-01", aapl)
    assert {"in fiscal Q3 2023", "in the June 2023 quarter"} <= quarter and "in Q3 2023" not in quarter
    tsla = fiscal_calendar(_env(data_root, "tsla-10q-2024-06-30").filing)
    assert {"in the first half of 2024", "in H1 2024"} <= _phrases("2024-01-01..2024-06-30", tsla)
    assert {"in Q2 2024", "in the second quarter of 2024"} <= _phrases("2024-04-01..2024-06-30", tsla)
    assert {"in 2023", "in fiscal 2023"} <= _phrases("2023-01-01..2023-12-31", tsla)
    instants = _phrases("2023-12-31", tsla)
    assert {"at year-end 2023", "at the end of fiscal 2023"} <= instants
    assert any(p.startswith("on the ") and p.endswith(" balance sheet") for p in instants)
    assert "at the end of Q2 2024" in _phrases("2024-06-30", tsla)
    # a span that is not a fiscal quarter or a year to date is named by its dates only
    odd = _phrases("2023-01-01..2023-07-21", fiscal_calendar(_env(data_root, "aeon-10q-2023-09-30").filing))
    assert odd and all(p.startswith("between ") for p in odd)


def test_a_calendar_the_dei_facts_contradict_gives_dates_only() -> None:
    cal = FiscalCalendar(12, 0, False)
    words = {w.style for seed in range(12) for w in period_wordings(parse_period("2024-01-01..2024-06-30"), cal,
                                                                      random.Random(seed))}
    assert words == {"dates"}


def test_concept_words_are_the_filer_s_labels_shortened_or_a_synonym_and_never_another_concept_s(data_root) -> None:
    assert "current assets" in [s.lower() for s in shortened("Total current assets")]
    assert "Accounts receivable" in shortened("Accounts receivable, net of allowance of $5")
    assert "R&D" in shortened("Research and development")
    env = _env(data_root, "tsla-10q-2024-06-30")
    ctx = ToolContext(env)
    capex = resolve_concept(ctx, "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment")
    period = parse_period("2024-01-01..2024-06-30")
    words = {w.text: w.source for w in concept_wordings(ctx, capex, taken_phrases(ctx, capex, period, {}))}
    assert words["capex"] == "synonym" and words["Payments to Acquire PP&E"] == "short"
    # Tesla labels us-gaap:Revenues "Revenues" and reports the contract-revenue concept for the same half
    # year, which answers to "revenue" too: neither may be asked for as "revenue", "sales" or "revenues"
    revenue = resolve_concept(ctx, "us-gaap:Revenues")
    assert concept_wordings(ctx, revenue, taken_phrases(ctx, revenue, period, {})) == []
    contract = resolve_concept(ctx, "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax")
    assert {(w.source, w.text) for w in concept_wordings(ctx, contract, taken_phrases(ctx, contract, period, {}))} == \
        {("filer", "Revenue from Contract with Customer, Excluding Assessed Tax"),
         ("short", "Revenue from Contract with Customer"),
         ("name", "revenue from contract with customer excluding assessed tax")}
    cost = resolve_concept(ctx, "us-gaap:CostOfRevenue")
    assert {"Total cost of revenues", "cost of revenues", "COGS"} <= \
        {w.text for w in concept_wordings(ctx, cost, taken_phrases(ctx, cost, period, {}))}


def test_company_names_as_people_say_them(data_root: Path) -> None:
    assert company(_env(data_root, "amzn-10k-2022-12-31").filing, "amzn-10k-2022-12-31").name == "Amazon"
    assert company(_env(data_root, "ibm-10k-2024-12-31").filing, "ibm-10k-2024-12-31").name == "IBM"
    apple = company(_env(data_root, "aapl-10k-2023-09-30").filing, "aapl-10k-2023-09-30")  # no dei ticker
    assert (apple.name, apple.ticker) == ("Apple", "AAPL")
    assert company(_env(data_root, "ngl-10k-2024-03-31").filing, "ngl-10k-2024-03-31").name == "NGL Energy Partners"


def test_the_cases_command_words_the_questions_naturally(data_root: Path, tmp_path: Path, capsys) -> None:
    argv = ["cases", "generate", "--filing", "gevi-10q-2024-03-31", "--per-rule", "3", "--consistent", "2",
            "--real", "0", "--seed", "3", "--style", "natural", "--data-root", str(data_root)]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    a, b = (sorted((tmp_path / x).glob("*.case.yaml")) for x in "ab")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b] and a
    text = a[0].read_text(encoding="utf-8")
    assert "asked in natural wording" in text and "query_natural" in text
    cases = load_case_file(a[0])
    assert cases and all(c.query.form == "text" and not template_like(c.query.text) for c in cases)
    # --style templates is --questions: cases/hard's wording
    plain = [x for x in argv if x not in ("--style", "natural")]
    assert main([*plain, "--questions", "--out", str(tmp_path / "q")]) == 0
    assert main([*plain, "--style", "templates", "--out", str(tmp_path / "t")]) == 0
    q, t = (sorted((tmp_path / x).glob("*.case.yaml")) for x in "qt")
    assert [p.read_bytes() for p in q] == [p.read_bytes() for p in t] and b"asked as questions" in q[0].read_bytes()
    assert [c.id for c in load_case_file(q[0])] == [c.id for c in cases]  # the same cases, other words
    capsys.readouterr()
