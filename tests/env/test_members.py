"""Members by meaning (auditflow.env.members) on real segment, product and geography axes: Apple's
segments and products, Tesla's energy segment on the axis its line item uses; every label source
(the filer's terse, standard and verbose labels, the taxonomy's, the member's name); the tool."""
from __future__ import annotations

import json

import pytest

from auditflow.env.members import MEMBER_TOOLS, find_members, member_labels, named_dimensions, words
from auditflow.env.schema import validate
from auditflow.env.tool_base import ToolContext, ToolError
from auditflow.env.tools import TOOLS
from auditflow.graphs.environment import build_environment
from auditflow.xbrl.qname import QName

SEGMENTS, PRODUCTS, GEOGRAPHY = "us-gaap:StatementBusinessSegmentsAxis", "srt:ProductOrServiceAxis", "srt:StatementGeographicalAxis"


@pytest.fixture(scope="module")
def apple(data_root, taxonomy):
    tset, graph = taxonomy
    return build_environment(data_root / "filings" / "aapl-10k-2023-09-30", taxonomy_set=tset, taxonomy=graph)


@pytest.fixture(scope="module")
def tesla(data_root, taxonomy):
    tset, graph = taxonomy
    return build_environment(data_root / "filings" / "tsla-10q-2024-06-30", taxonomy_set=tset, taxonomy=graph)


def best(env, text, **kw):
    found = find_members(env, text, **kw)
    assert found, f"{text!r}: nothing found"
    return found[0]


def test_words_are_lower_case_singular_and_without_filler():
    assert words("Services and Other [Member]") == {"service", "other"}
    assert words("U.S. Treasury securities") == {"us", "treasury", "security"}
    assert words("of the") == frozenset()


@pytest.mark.parametrize("text, axis, member", [
    ("Greater China", SEGMENTS, "aapl:GreaterChinaSegmentMember"),
    ("Americas", SEGMENTS, "aapl:AmericasSegmentMember"),
    ("Rest of Asia Pacific", SEGMENTS, "aapl:RestOfAsiaPacificSegmentMember"),
    ("services", PRODUCTS, "us-gaap:ServiceMember"),
    ("iPhone", PRODUCTS, "aapl:IPhoneMember"),
    ("wearables, home and accessories", PRODUCTS, "aapl:WearablesHomeandAccessoriesMember"),
])
def test_apple_segments_and_products_by_their_labels(apple, text, axis, member):
    c = best(apple, text)
    assert (c.axis, c.member) == (axis, member) and c.whole and c.facts > 0
    assert text.lower() in c.reason.lower() and member in c.reason and axis in c.reason


def test_greater_china_is_not_china(apple):
    """"China" (the country on the geographical axis) is named too, but "Greater China" names more."""
    found = find_members(apple, "Greater China")
    assert [c.member for c in found[:2]] == ["aapl:GreaterChinaSegmentMember", "country:CN"]
    assert named_dimensions("Greater China", found) == {SEGMENTS: "aapl:GreaterChinaSegmentMember"}
    assert best(apple, "China").member == "country:CN"


def test_two_members_named_together(apple):
    text = "iPhone net sales in Greater China"
    assert named_dimensions(text, find_members(apple, text)) == {
        PRODUCTS: "aapl:IPhoneMember", SEGMENTS: "aapl:GreaterChinaSegmentMember"}


def test_a_word_of_a_longer_label_names_it_when_nothing_else_does(apple):
    found = find_members(apple, "wearables")
    assert not found[0].whole and found[0].member == "aapl:WearablesHomeandAccessoriesMember"
    assert named_dimensions("wearables", found) == {PRODUCTS: "aapl:WearablesHomeandAccessoriesMember"}


def concept(env, local: str) -> QName:
    return next(q for q in env.index.by_concept if q.local == local and q.prefix == "us-gaap")


def test_tesla_energy_segment_on_the_axis_its_line_item_uses(tesla):
    """Tesla reports its energy segment's revenue on the segments axis and its deferred revenue on the
    product axis, with the same member: the concept decides the axis."""
    revenue = best(tesla, "energy generation and storage", concept=concept(tesla, "Revenues"))
    assert (revenue.axis, revenue.member) == (SEGMENTS, "tsla:EnergyGenerationAndStorageSegmentMember")
    assert revenue.facts == 4
    liability = find_members(tesla, "energy generation and storage", concept=concept(tesla, "ContractWithCustomerLiability"))
    assert [(c.axis, c.member) for c in liability] == [(PRODUCTS, "tsla:EnergyGenerationAndStorageSegmentMember")]


def test_tesla_services_is_services_and_other(tesla):
    found = find_members(tesla, "services")
    assert found[0].member == "tsla:ServicesAndOtherMember"
    assert named_dimensions("services", found) == {PRODUCTS: "tsla:ServicesAndOtherMember"}


# -- every label source ----------------------------------------------------------------------------------
def test_a_member_by_the_filers_terse_label(apple):
    assert "the filer's terseLabel" in best(apple, "Greater China").reason


def test_a_member_by_the_filers_standard_label(apple):
    c = best(apple, "RSUs")  # "Restricted Stock Units (RSUs) [Member]"; the terse label says "Restricted stock units"
    assert c.member == "us-gaap:RestrictedStockUnitsRSUMember" and "the filer's label" in c.reason


def test_a_member_by_the_filers_verbose_label(apple):
    c = best(apple, "hedges of foreign currency exposure associated with term debt")
    assert c.member == "us-gaap:CrossCurrencyInterestRateContractMember" and "verboseLabel" in c.reason


def test_a_member_by_the_taxonomys_label(tesla, data_root):
    c = best(tesla, "JPMorgan Chase Bank N.A.")  # the filer says "JPMORGAN CHASE BANK N.A. LONDON BRANCH"
    assert c.member == "exch:JPCB" and c.whole and "the taxonomy's label" in c.reason
    bare = build_environment(data_root / "filings" / "tsla-10q-2024-06-30")  # without the taxonomy, only in part
    assert not any("taxonomy" in lab.source for lab in member_labels(bare))
    assert not best(bare, "JPMorgan Chase Bank N.A.").whole


def test_a_member_by_its_name(tesla):
    c = best(tesla, "JPCB")
    assert c.member == "exch:JPCB" and "its name" in c.reason


# -- the tool ------------------------------------------------------------------------------------------
def test_resolve_member_tool(tesla, data_root):
    tool = MEMBER_TOOLS[0]
    ctx = ToolContext(tesla, data_root)
    args = {"phrase": "energy generation and storage", "concept": "us-gaap:Revenues"}
    assert tool.name == "resolve_member" and validate(args, tool.input_schema) is None
    obs = tool.function(ctx, args)
    json.dumps(obs)
    assert obs["dimensions"] == {SEGMENTS: "tsla:EnergyGenerationAndStorageSegmentMember"}
    assert obs["candidates"][0]["rank"] == 1 and obs["count"] == len(obs["candidates"])
    with pytest.raises(ToolError) as err:
        tool.function(ctx, {"phrase": "Greater Antarctica widgets"})
    assert err.value.type == "bad_arguments" and "Greater Antarctica widgets" in err.value.message
    with pytest.raises(ToolError) as err:
        tool.function(ctx, {"phrase": "services", "concept": "us-gaap:Revnues"})
    assert err.value.type == "unknown_concept"
    assert "resolve_member" not in TOOLS  # offered by a new tool-set version only
