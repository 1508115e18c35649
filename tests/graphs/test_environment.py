"""The dual graph: a real filing joined to the real taxonomy, with every gap recorded."""
from __future__ import annotations

from auditflow.graphs.environment import build_environment
from auditflow.xbrl.qname import QName

GAAP23 = "http://fasb.org/us-gaap/2023"


def test_apple_joins_the_2024_taxonomy_and_records_the_year_mismatch(data_root, taxonomy):
    tset, graph = taxonomy
    env = build_environment(data_root / "filings" / "aapl-10k-2023-09-30", taxonomy_set=tset, taxonomy=graph)
    assets = QName(GAAP23, "Assets")
    assert env.bridges[assets] == QName("http://fasb.org/us-gaap/2024", "Assets")
    codes = {w.code for w in env.warnings}
    assert "taxonomy-year-mismatch" in codes
    unavailable = next(w for w in env.warnings if w.code == "taxonomy-unavailable")
    assert "https://xbrl.fasb.org/us-gaap/2023/elts/us-gaap-2023.xsd" in unavailable.message
    assert "--taxonomy" in unavailable.message
    # bridge edges in the graph: filing concept -> taxonomy concept
    g = env.filing_graph
    assert g.has_edge(("concept", assets.clark()), ("taxonomy", "{http://fasb.org/us-gaap/2024}Assets"))
    # fact -> concept bridge for every fact
    fact = env.facts(assets)[0]
    assert g.has_edge(("fact", fact.key), ("concept", assets.clark()))


def test_rolled_filing_on_a_2025_taxonomy_we_lack_still_loads_with_warnings(data_root, taxonomy):
    tset, graph = taxonomy
    env = build_environment(data_root / "filings-rolled" / "tol-10k-2023-10-31", taxonomy_set=tset, taxonomy=graph)
    assert env.counts()["facts"] == 1817
    text = " ".join(w.message for w in env.warnings)
    assert "http://fasb.org/us-gaap/2025" in text and "2024" in text
    assert any(w.code == "taxonomy-unavailable" and "us-gaap/2025" in w.message for w in env.warnings)


def test_concept_view_merges_filing_and_taxonomy(data_root, taxonomy):
    tset, graph = taxonomy
    env = build_environment(data_root / "filings" / "aapl-10k-2023-09-30", taxonomy_set=tset, taxonomy=graph)
    c = env.concept(QName(GAAP23, "Assets"))
    assert c is not None and c.period_type == "instant"  # us-gaap 2024 schema is missing: inferred from contexts
    axis = env.concept(QName("http://fasb.org/srt/2023", "ProductOrServiceAxis"))
    assert axis is not None and axis.period_type == "duration" and axis.source == "schema"


def test_queries_facts_history_calc_and_cubes(data_root, taxonomy):
    tset, graph = taxonomy
    env = build_environment(data_root / "filings" / "aapl-10k-2023-09-30", taxonomy_set=tset, taxonomy=graph)
    rev = QName(GAAP23, "RevenueFromContractWithCustomerExcludingAssessedTax")
    history = env.fact_history(rev)
    assert [str(env.index.period(f)) for f in history] == [
        "2020-09-27..2021-09-25", "2021-09-26..2022-09-24", "2022-09-25..2023-09-30"]
    assert [f.value for f in history] == ["365817000000", "394328000000", "383285000000"]
    kids = {a.target.local for a in env.index.calc_children(QName(GAAP23, "Assets"))}
    assert kids == {"AssetsCurrent", "AssetsNoncurrent"}
    ops = [c for c in env.cubes() if "OPERATIONS" in env.role_definition(c.role)]
    assert ops and QName("http://fasb.org/srt/2023", "ProductOrServiceAxis") in ops[0].axes
    member_fact = next(f for f in env.facts(rev) if env.filing.contexts[f.context_id].dimensions)
    assert env.is_dimensionally_valid(member_fact, ops[0])
    assert env.is_dimensionally_valid(history[-1], ops[0])  # the total: axis at its default
