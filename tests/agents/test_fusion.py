"""Evidential fusion: the worked example of docs/evidential-reasoning.md, pinned to 4 decimals,
and the protocol's guarantees (the checker is authoritative, vacuous reports decide nothing)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from auditflow.agents.fusion import (
    CONSISTENT, UNABLE, VIOLATION, FusionError, FusionInput, FusionResult, Mass, TotalConflictError,
    _er_combine, _ERState, combine, conflict_of, dempster, discount, er_algorithm, er_rule,
    fuse_reports, report_mass,
)
from auditflow.errors import AuditflowError
from auditflow.rules.finding import Outcome

# The doc's two auditors: A1 Compliance, A2 Forensic.
M1 = Mass(consistent=0.1, violation=0.7, ignorance=0.2)
M2 = Mass(consistent=0.3, violation=0.6, ignorance=0.1)


def r4(x: float) -> float:
    return round(x, 4)


def masses4(m: Mass) -> tuple[float, float, float]:
    """(V, C, Θ) to 4 decimals, the order the doc writes them in."""
    return r4(m.violation), r4(m.consistent), r4(m.ignorance)


# --- Mass -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("c, v, t", [(0.5, 0.6, 0.0), (-0.1, 0.6, 0.5), (0.2, 0.2, 0.2), (float("nan"), 0.5, 0.5)])
def test_mass_rejects_invalid_assignments(c, v, t):
    with pytest.raises(FusionError, match="mass"):
        Mass(c, v, t)


def test_belief_functions_on_a_singleton_frame():
    assert (M1.bel(VIOLATION), M1.pl(VIOLATION), M1.betp(VIOLATION)) == pytest.approx((0.7, 0.9, 0.8))
    assert M1.pl(CONSISTENT) == pytest.approx(1 - M1.bel(VIOLATION))
    with pytest.raises(FusionError, match="hypothesis"):
        M1.bel(UNABLE)


def test_mass_json_rounds_by_largest_remainder_and_reads_back():
    m, _ = dempster(M1, M2)
    j = m.to_json()
    assert j == {"consistent": 0.136986, "ignorance": 0.027397, "violation": 0.835617}
    assert Mass.from_json(j).to_json() == j


# --- Dempster's rule: the worked example ------------------------------------------------------------

def test_dempster_worked_example():
    m12, k = dempster(M1, M2)
    assert r4(k) == 0.27
    assert masses4(m12) == (0.8356, 0.1370, 0.0274)
    assert (r4(m12.bel(VIOLATION)), r4(m12.pl(VIOLATION)), r4(m12.betp(VIOLATION))) == (0.8356, 0.8630, 0.8493)
    assert (r4(m12.bel(CONSISTENT)), r4(m12.pl(CONSISTENT))) == (0.1370, 0.1644)
    assert round(m12.bel(VIOLATION) * (1 - k), 3) == 0.610


def test_discounting_a_report_that_skipped_a_required_tool():
    m2 = discount(M2, 0.5)
    assert masses4(m2) == (0.30, 0.15, 0.55)
    fused, k = dempster(M1, m2)
    assert r4(k) == 0.135
    assert masses4(fused) == (0.7572, 0.1156, 0.1272)
    full, k_full = dempster(M1, M2)
    # "ignorance rises and the fused credibility drops": true of Bel and BetP ...
    assert fused.ignorance > full.ignorance
    assert fused.bel(VIOLATION) < full.bel(VIOLATION) and fused.betp(VIOLATION) < full.betp(VIOLATION)
    # ... but not of Bel·(1 − K): discounting shrinks K faster than Bel (0.655 > 0.610). Pinned on purpose.
    assert round(fused.bel(VIOLATION) * (1 - k), 3) == 0.655 > round(full.bel(VIOLATION) * (1 - k_full), 3)


def test_dempster_is_commutative_bit_for_bit():
    assert dempster(M1, M2) == dempster(M2, M1)
    d = discount(M2, 0.37)
    assert dempster(M1, d) == dempster(d, M1)


def test_dempster_with_the_vacuous_mass_is_the_identity():
    m, k = dempster(M1, Mass.vacuous())
    assert (m, k) == (M1, 0.0)


def test_total_conflict_raises_a_typed_error():
    with pytest.raises(TotalConflictError, match="total conflict") as exc:
        dempster(Mass.categorical(VIOLATION), Mass.categorical(CONSISTENT))
    assert isinstance(exc.value, AuditflowError)
    assert conflict_of([Mass.categorical(VIOLATION), Mass.categorical(CONSISTENT)]) == 1.0


def test_combine_many_sources_equals_pairwise_dempster():
    m3 = Mass(0.2, 0.5, 0.3)
    pairwise, k12 = dempster(*dempster(M1, M2)[:1], m3)
    fused, k = combine([M1, M2, m3])
    assert masses4(fused) == masses4(pairwise)
    assert k == pytest.approx(1 - (1 - 0.27) * (1 - k12))


@pytest.mark.parametrize("alpha", [-0.1, 1.5])
def test_discount_factor_must_be_a_probability(alpha):
    with pytest.raises(FusionError, match="alpha"):
        discount(M1, alpha)


def test_discount_composes_multiplicatively():
    assert masses4(discount(discount(M1, 0.5), 0.4)) == masses4(discount(M1, 0.2))


# --- ER algorithm and ER rule ------------------------------------------------------------------------

def test_er_algorithm_worked_example():
    b = er_algorithm([M1, M2], [0.6, 0.4])
    assert (r4(b.violation), r4(b.consistent), r4(b.ignorance)) == (0.7112, 0.1554, 0.1335)


def test_er_algorithm_intermediate_masses():
    a1 = _ERState(v=0.42, c=0.06, bar=0.40, tilde=0.12)
    a2 = _ERState(v=0.24, c=0.12, bar=0.60, tilde=0.04)
    s = _er_combine(a1, a2)
    assert (r4(s.v), r4(s.c), r4(s.tilde), r4(s.bar)) == (0.5287, 0.1155, 0.0992, 0.2566)


def test_er_algorithm_normalises_relative_weights():
    assert er_algorithm([M1, M2], [3, 2]) == er_algorithm([M1, M2], [0.6, 0.4])


def test_er_rule_worked_example():
    p = er_rule([M1, M2], weights=[0.9, 0.7], reliabilities=[0.9, 0.7])
    assert (r4(p.violation), r4(p.consistent), r4(p.ignorance)) == (0.7692, 0.1388, 0.0920)


def test_er_rule_with_full_reliability_is_dempster():
    p = er_rule([M1, M2], weights=[1, 1], reliabilities=[1, 1])
    assert masses4(p) == masses4(dempster(M1, M2)[0]) == (0.8356, 0.1370, 0.0274)


def test_er_rule_with_one_source_returns_it():
    assert masses4(er_rule([M1], weights=[0.4], reliabilities=[0.3])) == masses4(M1)


def test_er_rule_rejects_mismatched_parameters():
    with pytest.raises(FusionError, match="one weight and one reliability"):
        er_rule([M1, M2], weights=[1], reliabilities=[1, 1])


# --- Report BBAs ------------------------------------------------------------------------------------

def test_report_mass_is_the_natural_bba():
    assert report_mass(VIOLATION, 0.8, 0.5) == Mass(0.0, 0.4, 0.6)
    assert masses4(report_mass(CONSISTENT, 0.9)) == (0.0, 0.9, 0.1)
    assert report_mass(UNABLE, 1.0) == Mass.vacuous()


@pytest.mark.parametrize("decision, q, s, match", [
    ("maybe", 0.5, 1.0, "hypothesis"), (VIOLATION, 1.2, 1.0, "confidence"), (VIOLATION, 0.5, -1, "completeness"),
])
def test_report_mass_rejects_bad_inputs(decision, q, s, match):
    with pytest.raises(FusionError, match=match):
        report_mass(decision, q, s)


# --- Fusing reports ---------------------------------------------------------------------------------

def _report(role, decision, confidence, *, skipped=()):
    return FusionInput(role, decision, confidence, skipped_tools=skipped)


def test_agreeing_reports_without_a_checker():
    res = fuse_reports([_report("A1", VIOLATION, 0.7), _report("A2", VIOLATION, 0.6)])
    assert res.decision == VIOLATION
    assert res.conflict == 0.0 and res.report_conflict == 0.0
    assert r4(res.bel) == r4(1 - 0.3 * 0.4)
    assert res.credibility == pytest.approx(res.bel)
    assert res.interval == (res.bel, res.pl)


def test_disagreeing_reports_decide_by_pignistic_probability():
    res = fuse_reports([_report("A1", VIOLATION, 0.8), _report("A2", CONSISTENT, 0.5)])
    assert res.decision == VIOLATION
    assert r4(res.conflict) == 0.4 == r4(res.report_conflict)
    assert res.credibility == pytest.approx(res.bel * 0.6)


def test_skipped_tools_discount_with_reason():
    res = fuse_reports([_report("A1", VIOLATION, 0.8), _report("A2", VIOLATION, 0.6, skipped=["get_fact_history"])])
    a2 = res.sources[1]
    assert a2.alpha == 0.5 and a2.reasons == ("skipped required tools: get_fact_history",)
    assert masses4(a2.mass) == (0.3, 0.0, 0.7)
    assert res.sources[0].alpha == 1.0 and res.sources[0].reasons == ()


@pytest.mark.parametrize("checker", [VIOLATION, Outcome.VIOLATION])
def test_report_contradicting_the_checker_cannot_win_even_with_confidence_one(checker):
    res = fuse_reports([_report("A1", CONSISTENT, 1.0), _report("A2", UNABLE, 0.0)], checker)
    assert res.decision == VIOLATION
    assert res.sources[0].alpha == 0.0 and res.sources[0].mass.is_vacuous
    assert "contradicts the authoritative checker" in res.sources[0].reasons[0]
    assert r4(res.bel) == 0.99 and res.credibility == pytest.approx(0.99)


def test_a_report_contradicting_its_own_checker_results_is_discounted_once():
    """Ungrounded (not what its author's checkers returned): discounted like a contradiction of the
    checker, which decides when there is no definite checker outcome; with one, not twice."""
    invented = FusionInput("A1", VIOLATION, 1.0, ungrounded=True)
    res = fuse_reports([invented, _report("A2", UNABLE, 0.0)])
    assert res.decision == UNABLE and res.sources[0].alpha == 0.0
    assert res.sources[0].reasons == ("contradicts its own checker results",)
    assert fuse_reports([replace(invented, ungrounded=False), _report("A2", UNABLE, 0.0)]).decision == VIOLATION
    wrong_codes = fuse_reports([FusionInput("A1", CONSISTENT, 1.0, ungrounded=True)], VIOLATION, contradiction_alpha=0.5)
    assert wrong_codes.sources[0].alpha == 0.5 and len(wrong_codes.sources[0].reasons) == 1


def test_contradicting_reports_cannot_win_whatever_the_alpha():
    reports = [_report("A1", CONSISTENT, 1.0), _report("A2", CONSISTENT, 0.95)]
    res = fuse_reports(reports, VIOLATION, contradiction_alpha=1.0)  # no discount at all
    assert res.decision == VIOLATION
    assert res.mass.betp(CONSISTENT) > res.mass.betp(VIOLATION)  # the numbers stay honest ...
    assert res.credibility < 0.01  # ... and show the decision has next to no support


def test_the_checker_adds_support_to_agreeing_reports():
    without = fuse_reports([_report("A1", CONSISTENT, 0.6), _report("A2", CONSISTENT, 0.5)])
    with_checker = fuse_reports([_report("A1", CONSISTENT, 0.6), _report("A2", CONSISTENT, 0.5)], "consistent")
    assert with_checker.decision == CONSISTENT
    assert with_checker.credibility > without.credibility


@pytest.mark.parametrize("checker", [None, "not_applicable", Outcome.NOT_APPLICABLE])
def test_vacuous_reports_are_unable_to_verify(checker):
    res = fuse_reports([_report("A1", UNABLE, 0.9), _report("A2", VIOLATION, 0.0)], checker)
    assert res.decision == UNABLE
    assert res.mass.is_vacuous
    assert (res.bel, res.pl, res.betp, res.credibility) == (0.0, 1.0, 0.0, 0.0)


def test_no_reports_and_no_checker_is_unable_to_verify():
    assert fuse_reports([]).decision == UNABLE


def test_vacuous_reports_with_a_definite_checker_follow_the_checker():
    res = fuse_reports([_report("A1", UNABLE, 0.5), _report("A2", UNABLE, 0.5)], "consistent")
    assert res.decision == CONSISTENT and r4(res.bel) == 0.99


def test_symmetric_disagreement_is_a_tie():
    res = fuse_reports([_report("A1", VIOLATION, 0.6), _report("A2", CONSISTENT, 0.6)])
    assert res.decision == UNABLE


def test_categorical_disagreement_without_a_checker_raises_for_escalation():
    with pytest.raises(TotalConflictError, match="A1, A2"):
        fuse_reports([_report("A1", VIOLATION, 1.0), _report("A2", CONSISTENT, 1.0)])


def test_bad_checker_outcome_is_rejected():
    with pytest.raises(FusionError, match="checker outcome"):
        fuse_reports([], "maybe")


def test_fusion_result_json_is_rounded_and_reads_back():
    reports = [_report("A1", VIOLATION, 0.7), _report("A2", CONSISTENT, 0.3, skipped=["check_sign"])]
    res = fuse_reports(reports, "violation")
    j = res.to_json()
    assert j["interval"] == [j["bel"], j["pl"]]
    assert set(j["hypotheses"]) == {CONSISTENT, VIOLATION}
    assert all(len(repr(x).split(".")[-1]) <= 6 for x in (j["bel"], j["pl"], j["betp"], j["credibility"]))
    assert FusionResult.from_json(j).to_json() == j
    assert j["sources"][1]["alpha"] == 0.0 and len(j["sources"][1]["reasons"]) == 2
