"""DQC.US.0015 (negative values): every branch of docs section 2 on tiny hand-built filings,
resource loading / year selection, and the TestCo must-show run."""
from __future__ import annotations

import datetime as dt
import json
import time
from decimal import Decimal
from pathlib import Path

import pytest

from auditflow import dataroot
from auditflow.dataroot import ENV_VAR, data_root_or_none, resolve_data_root
from auditflow.errors import DataRootError, ResourceError
from auditflow.rules.applicability import rule_applies
from auditflow.rules.dqc_0015 import rule_0015
from auditflow.rules.finding import Outcome, RuleResult, dec_str
from auditflow.rules.resources import (
    filing_taxonomy_year,
    load_0015_exclusions,
    load_0015_list,
    load_form_lookup,
    select_year,
)
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.instance import parse_instance
from auditflow.xbrl.model import Context, Fact, Period, TypedMember, Unit
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml

ISO = "http://www.xbrl.org/2003/iso4217"
ABC = "http://abc.example.com/20251231"


def gaap(local: str, year: int = 2025) -> QName:
    return QName(f"http://fasb.org/us-gaap/{year}", local, "us-gaap")


def srt(local: str, year: int = 2025) -> QName:
    return QName(f"http://fasb.org/srt/{year}", local, "srt")


def abc(local: str) -> QName:
    return QName(ABC, local, "abc")


class Builder:
    """Makes Context / Unit / Fact objects and assembles them into a Filing."""

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.contexts: dict[str, Context] = {}
        self.units = {"usd": Unit("usd", (QName(ISO, "USD", "iso4217"),))}

    def context(self, dims=(), instant: str = "2024-12-31", cid: str | None = None) -> str:
        cid = cid or f"c{len(self.contexts)}"
        period = Period(None, dt.date.fromisoformat(instant))
        ordered = tuple(sorted(dims, key=lambda am: am[0].clark()))
        self.contexts[cid] = Context(cid, "http://www.sec.gov/CIK", "0000000001", period, ordered)
        return cid

    def fact(self, concept: QName, value, *, dims=(), cid: str | None = None, unit: str | None = "usd",
             nil: bool = False) -> Fact:
        cid = cid or self.context(dims)
        f = Fact(concept, cid, None if nil else str(value), unit, 0 if unit else None, id=f"f{len(self.facts)}",
                 is_nil=nil, index=len(self.facts))
        self.facts.append(f)
        return f

    def document_type(self, value: str) -> None:
        self.fact(QName("http://xbrl.sec.gov/dei/2025", "DocumentType", "dei"), value, unit=None)

    def filing(self) -> Filing:
        return Filing(source="test.xml", facts=list(self.facts), contexts=dict(self.contexts), units=dict(self.units))


def run(b: Builder, data_root: Path, **kw) -> RuleResult:
    return rule_0015(b.filing(), data_root=data_root, **kw)


def one_fact(data_root: Path, concept: QName, value, dims=()) -> RuleResult:
    b = Builder()
    b.fact(concept, value, dims=dims)
    return run(b, data_root)


PPE = gaap("PaymentsToAcquirePropertyPlantAndEquipment")


# -- the basic cases ----------------------------------------------------------------------------

def test_negative_without_dimensions_is_a_violation(data_root):
    r = one_fact(data_root, gaap("AccountsReceivableNetCurrent"), "-12500")
    assert [f.code for f in r.findings] == ["DQC.US.0015.2944"]
    f = r.findings[0]
    assert (f.reported, f.expected, f.tolerance, f.severity, f.rule) == (Decimal(-12500), Decimal(12500), 0, "error", "0015")
    assert f.fact_id == "f0" and f.unit == "USD" and f.dimensions == ()
    for part in ("AccountsReceivableNetCurrent", "-12,500 USD", "2024-12-31", "with no dimensions",
                 "positive value", "negated label", "DQC.US.0015.2944", "2025"):
        assert part in f.message
    j = f.to_json()
    assert j["reported"] == "-12500" and j["expected"] == "12500" and j["tolerance"] == "0"
    assert j["period"] == {"instant": "2024-12-31"} and j["dimensions"] == {}
    assert list(j) == sorted(j)
    json.dumps(j)  # plain JSON types only
    assert (r.checked, r.violations, r.consistent, r.not_applicable) == (1, 1, 0, 0)
    assert r.warnings == ()


@pytest.mark.parametrize("value", ["12500", "0", "0.00"])
def test_positive_or_zero_is_consistent(data_root, value):
    r = one_fact(data_root, gaap("AccountsReceivableNetCurrent"), value)
    assert r.findings == ()
    assert [(c.outcome, c.reason) for c in r.checks] == [(Outcome.CONSISTENT, "not negative")]


def test_nil_fact_is_ignored(data_root):
    b = Builder()
    b.fact(gaap("AccountsReceivableNetCurrent"), None, nil=True)
    r = run(b, data_root)
    assert r.findings == () and r.checks == ()


def test_concept_not_on_the_list_is_not_checked(data_root):
    r = one_fact(data_root, gaap("CostOfRevenue"), "-1")  # belongs to 0014's list
    assert r.findings == () and r.checks == ()


def test_non_numeric_fact_is_ignored(data_root):
    b = Builder()
    b.fact(gaap("AccountsReceivableNetCurrent"), "-1", unit=None)
    assert run(b, data_root).checks == ()


# -- dimensions: 4a-4d --------------------------------------------------------------------------

def test_4a_member_name_substring_excuses(data_root):
    axis = srt("ConsolidationItemsAxis")
    r = one_fact(data_root, PPE, "-3000000", [(axis, srt("ConsolidationEliminationsMember"))])
    assert r.findings == () and r.checks[0].outcome is Outcome.CONSISTENT
    assert "ConsolidationEliminationsMember" in r.checks[0].reason  # first match: 'consolidat'
    r = one_fact(data_root, PPE, "-3000000", [(axis, abc("IntersegmentEliminationsMember"))])
    assert r.findings == () and "'eliminat'" in r.checks[0].reason
    r = one_fact(data_root, PPE, "-3000000", [(axis, abc("OperatingSegmentsMember"))])
    assert [f.code for f in r.findings] == ["DQC.US.0015.1964"]


def test_4b_excluded_member_excuses(data_root):
    axis = srt("ProductOrServiceAxis")
    r = one_fact(data_root, PPE, "-3000000", [(axis, gaap("CorporateNonSegmentMember"))])
    assert r.findings == () and "CorporateNonSegmentMember" in r.checks[0].reason
    r = one_fact(data_root, PPE, "-3000000", [(axis, abc("WidgetMember"))])
    assert [f.code for f in r.findings] == ["DQC.US.0015.1964"]


def test_4c_excluded_explicit_axis(data_root):
    pref = gaap("PreferredStockValue")
    r = one_fact(data_root, pref, "-5", [(gaap("StatementClassOfStockAxis"), gaap("SeriesAPreferredStockMember"))])
    assert [f.code for f in r.findings] == ["DQC.US.0015.3240"]
    assert r.findings[0].to_json()["dimensions"] == {"us-gaap:StatementClassOfStockAxis": "us-gaap:SeriesAPreferredStockMember"}
    r = one_fact(data_root, pref, "-5", [(gaap("StatementEquityComponentsAxis"), gaap("RetainedEarningsMember"))])
    assert r.findings == () and "StatementEquityComponentsAxis" in r.checks[0].reason


def test_4c_segments_axis_excuses_any_member(data_root):
    dda = gaap("DepreciationDepletionAndAmortization")
    r = one_fact(data_root, dda, "-1", [(gaap("StatementBusinessSegmentsAxis"), abc("WidgetSegmentMember"))])
    assert r.findings == () and r.consistent == 1


def test_4c_typed_axis(data_root):
    dda = gaap("DepreciationDepletionAndAmortization")
    r = one_fact(data_root, dda, "-1", [(gaap("InvestmentIdentifierAxis"), TypedMember("Loan 17"))])
    assert r.findings == () and "InvestmentIdentifierAxis" in r.checks[0].reason
    r = one_fact(data_root, dda, "-1", [(abc("LoanIdentifierAxis"), TypedMember("Loan 17"))])
    assert [f.code for f in r.findings] == ["DQC.US.0015.721"]
    assert r.findings[0].to_json()["dimensions"] == {"abc:LoanIdentifierAxis": "Loan 17"}


def test_4c_extension_income_tax_change_in_law_axis(data_root):
    r = one_fact(data_root, PPE, "-7", [(abc("IncomeTaxEffectChangeInLawAxis"), abc("Tcja2017Member"))])
    assert r.findings == () and "IncomeTaxEffectChangeInLawAxis" in r.checks[0].reason


def test_4d_allowed_member_excuses_other_member_does_not(data_root):
    axis = srt("ConsolidatedEntitiesAxis")
    r = one_fact(data_root, PPE, "-3000000", [(axis, srt("ParentCompanyMember"))])
    assert r.findings == () and "allowed on srt:ConsolidatedEntitiesAxis" in r.checks[0].reason
    r = one_fact(data_root, PPE, "-3000000", [(axis, abc("WidgetCoMember"))])
    assert [f.code for f in r.findings] == ["DQC.US.0015.1964"]
    assert "srt:ConsolidatedEntitiesAxis=abc:WidgetCoMember" in r.findings[0].message
    assert r.findings[0].to_json()["dimensions"] == {"srt:ConsolidatedEntitiesAxis": "abc:WidgetCoMember"}


# -- duplicates, missing data -------------------------------------------------------------------

def test_exact_duplicates_are_reported_once(data_root):
    b = Builder()
    ar = gaap("AccountsReceivableNetCurrent")
    b.fact(ar, "-12500", cid=b.context(cid="a"))
    b.fact(ar, "-12500.0", cid=b.context(cid="b"))  # same content, other context id, same value
    b.fact(ar, "-99", cid="a")  # same context, different value: not a duplicate
    r = run(b, data_root)
    assert [f.fact_id for f in r.findings] == ["f0", "f2"]
    dup = [c for c in r.checks if c.outcome is Outcome.NOT_APPLICABLE]
    assert [(c.fact_id, c.reason) for c in dup] == [("f1", "exact duplicate of fact f0; evaluated once")]


def test_missing_context_warns_and_does_not_crash(data_root):
    b = Builder()
    b.fact(gaap("AccountsReceivableNetCurrent"), "-1", cid="nowhere")
    r = run(b, data_root)
    assert r.findings == () and r.not_applicable == 1
    assert any("nowhere" in w for w in r.warnings)


# -- applicability ------------------------------------------------------------------------------

def test_form_not_in_lookup_is_not_applicable(data_root):
    assert "N-CSR" not in load_form_lookup(data_root)["0015"]
    b = Builder()
    b.document_type("N-CSR")
    b.fact(gaap("AccountsReceivableNetCurrent"), "-1")
    r = run(b, data_root)
    assert r.findings == () and r.checked == 0 and r.not_applicable == 1
    assert "N-CSR" in r.checks[0].reason


def test_listed_form_and_missing_document_type_run(data_root):
    for doc_type in ("10-K", None):
        b = Builder()
        if doc_type:
            b.document_type(doc_type)
        b.fact(gaap("AccountsReceivableNetCurrent"), "-1")
        assert len(run(b, data_root).findings) == 1


def test_rule_applies_lookup():
    lookup = {"0015": frozenset({"10-K"})}
    assert rule_applies("0015", "10-K", lookup) and rule_applies("15", " 10-K ", lookup)
    assert rule_applies("0015", None, lookup) and rule_applies("0015", "", lookup)
    assert not rule_applies("0015", "N-CSR", lookup)
    with pytest.raises(ResourceError):
        rule_applies("0117", "10-K", lookup)


# -- taxonomy years -----------------------------------------------------------------------------

def test_2022_filing_uses_nearest_list_by_local_name(data_root):
    b = Builder()
    b.fact(gaap("ContractReceivableDueInRollingYearFive", 2022), "-1")  # in the 2023 list only
    b.fact(gaap("CryptoAssetCost", 2022), "-1")  # only from 2025 on
    r = run(b, data_root)
    assert [f.code for f in r.findings] == ["DQC.US.0015.532"]
    assert r.warnings == ("no DQC 0015 list for 2022; used 2023 (nearest)",)


def test_select_year():
    assert select_year(2024) == (2024, None)
    assert select_year(2026) == (2025, "no DQC 0015 list for 2026; used 2025 (nearest)")
    assert select_year(2019)[0] == 2023
    assert select_year(2024, (2023, 2025))[0] == 2025  # tie -> the later year
    year, note = select_year(None)
    assert year == 2025 and "unknown" in note
    with pytest.raises(ValueError):
        select_year(2025, ())


def test_filing_taxonomy_year():
    b = Builder()
    b.fact(srt("ParentCompanyMember", 2024), "1")
    assert filing_taxonomy_year(b.filing()) == 2024
    b.fact(gaap("Assets", 2023), "1")
    assert filing_taxonomy_year(b.filing()) == 2023  # us-gaap wins over srt
    assert filing_taxonomy_year(Filing(source="x", facts=[Fact(abc("X"), "c", "1", "usd")])) is None


def test_resources_loaded_per_year(data_root):
    lst = load_0015_list(data_root, 2025)
    assert len(lst) == 6632 and lst.by_local["AccountsReceivableNetCurrent"] == ("2944", "http://fasb.org/us-gaap/2025")
    assert lst.element_id(gaap("AccountsReceivableNetCurrent", 2026)) == "2944"
    assert lst.element_id(QName("http://fasb.org/us-gaap-ebp/2025", "AccountsReceivableNetCurrent")) is None
    assert load_0015_list(data_root, 2025) is lst  # cached
    ex = load_0015_exclusions(data_root, 2025)
    assert "eliminat" in ex.string_members and len(ex.members) == 9
    assert ex.axis_excluded(gaap("StatementEquityComponentsAxis", 2022))


# -- missing resources --------------------------------------------------------------------------

LOOKUP = 'RuleNumber,ApplicableForms\n0015,"10-K,10-Q"\n'


def _lookup_only_root(tmp_path: Path) -> Path:
    (tmp_path / "dqc" / "common").mkdir(parents=True)
    (tmp_path / "dqc" / "common" / "rule_form_lookup_0015_0117_0126.csv").write_text(LOOKUP)
    return tmp_path


def test_missing_form_lookup_names_the_file(tmp_path):
    b = Builder()
    with pytest.raises(ResourceError, match="rule_form_lookup_0015_0117_0126.csv") as exc:
        run(b, tmp_path)
    assert str(tmp_path) in str(exc.value) and "--data-root" in str(exc.value)


def test_missing_list_names_the_path(tmp_path):
    root = _lookup_only_root(tmp_path)
    b = Builder()
    b.fact(gaap("AccountsReceivableNetCurrent"), "-1")
    with pytest.raises(ResourceError) as exc:
        run(b, root, year=2025)
    assert str(root / "dqc" / "dqc_0015" / "non_neg_items_2025.csv") in str(exc.value)
    with pytest.raises(ResourceError, match="dqc_0015"):
        run(b, root)  # no year given and none staged


def test_malformed_list_is_a_resource_error(tmp_path):
    root = _lookup_only_root(tmp_path)
    (root / "dqc" / "dqc_0015").mkdir()
    (root / "dqc" / "dqc_0015" / "non_neg_items_2025.csv").write_text("id,name\n1,x\n")
    with pytest.raises(ResourceError, match="missing column"):
        load_0015_list(root, 2025)


# -- shared finding helpers and the data root ---------------------------------------------------

@pytest.mark.parametrize("raw,text", [("-1.25E+4", "-12500"), ("1.50", "1.5"), ("0.00", "0"), ("-0", "0"),
                                      ("1E+1", "10"), ("0.000125", "0.000125")])
def test_dec_str_never_uses_exponents(raw, text):
    assert dec_str(Decimal(raw)) == text


def test_data_root_order(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    monkeypatch.setenv(ENV_VAR, str(b))
    assert resolve_data_root(a) == a.resolve()
    assert resolve_data_root() == b.resolve()
    with pytest.raises(DataRootError, match="--data-root"):
        resolve_data_root(tmp_path / "missing")
    assert data_root_or_none(tmp_path / "missing") is None


def test_data_root_none_found(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path)  # no shared/data beside it or a parent
    monkeypatch.setattr(dataroot, "repo_data_root", lambda: tmp_path / "no-shared")
    monkeypatch.setattr(dataroot, "user_cache_data_root", lambda: tmp_path / "no-cache")
    with pytest.raises(DataRootError) as exc:
        resolve_data_root()
    msg = str(exc.value)
    assert "no-shared" in msg and "no-cache" in msg and ENV_VAR in msg and "--data-root" in msg
    assert data_root_or_none() is None


# -- must-show: the XULE TestCo instance --------------------------------------------------------

def test_testco_2026_against_2025_list(data_root):
    path = data_root / "dqc" / "dqc_0015" / "testcases" / "TestCo-2026-NonNeg-Cleaned.xml"
    p = parse_instance(parse_xml(path.read_bytes(), name=str(path)), document=str(path))
    filing = Filing(source=str(path), facts=p.facts, contexts=p.contexts, units=p.units, namespaces=p.namespaces)
    assert len(filing.facts) == 6388
    started = time.perf_counter()
    r = rule_0015(filing, data_root=data_root, year=2025)
    elapsed = time.perf_counter() - started
    lst = load_0015_list(data_root, 2025)
    listed = [f for f in filing.facts if f.concept.local in lst.by_local]
    assert len(r.findings) == len(listed) == 6349
    assert [f.fact_id for f in r.findings] == [f.key for f in listed]
    assert all(f.code == f"DQC.US.0015.{lst.by_local[f.concept.local][0]}" for f in r.findings)
    assert r.violations == 6349 and r.consistent == 0 and r.not_applicable == 0
    assert elapsed < 2.0, f"rule_0015 took {elapsed:.2f}s on 6,388 facts"
