"""Mutations of a loaded filing (the ``inject:`` step of audit cases) and the must-show mutation test.

Unit tests pin :func:`apply_mutation` on a tiny in-memory filing. The real-filing test is the proof
that each checker sees an injected error: one mutation at a time, the full report (0015, 0117 and
0126 together) must gain exactly one finding, with the right code and values, and nothing else in
it may change.
"""
from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from auditflow.errors import AuditflowError
from auditflow.graphs.environment import build_environment
from auditflow.mutations import (
    MAX_MATCHES, Mutation, MutationError, MutationTarget, apply_mutation, apply_mutations, calc_total_targets,
    exact_duplicates, member_targets, perturbation, sign_flip_targets,
)
from auditflow.rules.registry import agent_rules
from auditflow.rules.runner import run_rules
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import Context, Fact, Period, Unit
from auditflow.xbrl.qname import QName

GAAP = "http://fasb.org/us-gaap/2024"
DEI = "http://xbrl.sec.gov/dei/2024"
ISO = "http://www.xbrl.org/2003/iso4217"
CIK = "http://www.sec.gov/CIK"


def gaap(local: str) -> QName:
    return QName(GAAP, local, "us-gaap")


def tiny_filing() -> Filing:
    """Assets reported three times: twice as the same number (in copies of context and unit), once
    differently; plus a fact without id, a text fact, a nil fact and a non-number numeric fact."""
    instant, year = Period(None, dt.date(2024, 12, 31)), Period(dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    contexts = {cid: Context(cid, CIK, "0000000001", p) for cid, p in (("i", instant), ("i2", instant), ("d", year))}
    usd = (QName(ISO, "USD", "iso4217"),)
    units = {"usd": Unit("usd", usd), "usd2": Unit("usd2", usd)}
    facts = [
        Fact(gaap("Assets"), "i", "1000", "usd", -3, id="assets", index=0),
        Fact(gaap("Assets"), "i2", "1000.0", "usd2", -3, id="assets-copy", index=1),
        Fact(gaap("Assets"), "i", "2500", "usd", -3, id="assets-other", index=2),
        Fact(gaap("Liabilities"), "i", "400", "usd", -3, index=3),
        Fact(QName(DEI, "DocumentType", "dei"), "d", "10-K", id="doctype", index=4),
        Fact(gaap("Revenues"), "d", None, "usd", None, id="revenue-nil", is_nil=True, index=5),
        Fact(gaap("Liabilities"), "d", "n/a", "usd", None, id="broken", index=6),
    ]
    f = Filing(source="tiny", facts=facts, contexts=contexts, units=units)
    from auditflow.xbrl.duplicates import find_duplicates

    f.duplicates = find_duplicates(f)
    return f


def values(filing: Filing) -> dict[str, str | None]:
    return {f.key: f.value for f in filing.facts}


def snapshot(filing: Filing) -> tuple:
    return (list(filing.facts), list(filing.duplicates), dict(filing.contexts), dict(filing.units), list(filing.warnings))


# -- apply_mutation --------------------------------------------------------------------------------

def test_set_value_writes_a_plain_decimal_and_keeps_everything_else():
    f = tiny_filing()
    out = apply_mutation(f, Mutation("set_value", "#3", Decimal("1.5E+3")))
    assert values(out)["#3"] == "1500"
    assert out.fact_by_key("#3").decimals == -3 and out.fact_by_key("#3").concept == gaap("Liabilities")
    assert {k: v for k, v in values(out).items() if k != "#3"} == {k: v for k, v in values(f).items() if k != "#3"}
    assert values(apply_mutation(f, Mutation("set_value", "#3", Decimal("2.50"))))["#3"] == "2.5"


def test_flip_sign_negates_and_back():
    f = tiny_filing()
    once = apply_mutation(f, Mutation("flip_sign", "#3"))
    assert values(once)["#3"] == "-400"
    assert values(apply_mutation(once, Mutation("flip_sign", "#3")))["#3"] == "400"


def test_remove_drops_the_fact_and_works_on_text_facts():
    f = tiny_filing()
    out = apply_mutations(f, [Mutation("remove", "#3"), Mutation("remove", "doctype")])
    assert "#3" not in values(out) and "doctype" not in values(out)
    assert len(out.facts) == len(f.facts) - 2
    assert out.document_type is None and f.document_type == "10-K"


def test_exact_duplicates_are_mutated_together_and_duplicates_recomputed():
    f = tiny_filing()
    assert [x.key for x in exact_duplicates(f, f.fact_by_key("assets-copy"))] == ["assets", "assets-copy"]
    assert [(d.kind, d.facts) for d in f.duplicates] == [("inconsistent", ("assets", "assets-copy", "assets-other"))]

    flipped = apply_mutation(f, Mutation("flip_sign", "assets-copy"))
    assert (values(flipped)["assets"], values(flipped)["assets-copy"], values(flipped)["assets-other"]) == ("-1000", "-1000", "2500")

    agreed = apply_mutation(f, Mutation("set_value", "assets", Decimal(2500)))
    assert [(d.kind, d.facts) for d in agreed.duplicates] == [("identical", ("assets", "assets-copy", "assets-other"))]

    removed = apply_mutation(f, Mutation("remove", "assets"))
    assert [x.key for x in removed.facts if x.concept == gaap("Assets")] == ["assets-other"]
    assert removed.duplicates == []


def test_the_input_filing_is_never_touched():
    f = tiny_filing()
    before = snapshot(f)
    out = apply_mutations(f, [Mutation("set_value", "assets", Decimal(7)), Mutation("flip_sign", "#3"),
                              Mutation("remove", "doctype")])
    assert snapshot(f) == before
    assert out is not f and out.facts is not f.facts and out.contexts is not f.contexts
    out.warnings.append("later note")  # containers are the copy's own
    assert snapshot(f) == before


def test_unknown_fact_names_the_key_and_close_matches():
    f = tiny_filing()
    with pytest.raises(MutationError) as err:
        apply_mutation(f, Mutation("flip_sign", "asets"))
    assert isinstance(err.value, AuditflowError)
    assert err.value.fact == "asets" and "'asets'" in str(err.value)
    assert err.value.close_matches[0] == "assets" and "assets" in str(err.value)


def test_close_matches_are_capped_at_five():
    f = tiny_filing()
    f.facts += [Fact(gaap("Assets"), "d", str(n), "usd", 0, id=f"fact-{n}", index=10 + n) for n in range(10, 20)]
    with pytest.raises(MutationError) as err:
        apply_mutation(f, Mutation("remove", "fact-1"))
    assert len(err.value.close_matches) == MAX_MATCHES == 5
    assert all(k.startswith("fact-1") for k in err.value.close_matches)


@pytest.mark.parametrize("key, why", [("doctype", "not numeric"), ("revenue-nil", "nil"), ("broken", "not a number")])
@pytest.mark.parametrize("kind", ["set_value", "flip_sign"])
def test_value_change_on_a_fact_without_a_number_is_refused(key, why, kind):
    f = tiny_filing()
    mutation = Mutation(kind, key, Decimal(1) if kind == "set_value" else None)
    with pytest.raises(MutationError, match=why) as err:
        apply_mutation(f, mutation)
    assert err.value.fact == key and repr(key) in str(err.value)
    assert set(err.value.close_matches) <= {x.key for x in f.facts if x.number is not None}
    apply_mutation(f, Mutation("remove", key))  # removing it is fine


@pytest.mark.parametrize("args, match", [
    (("set_value", "assets"), "needs a Decimal"),
    (("set_value", "assets", 1.5), "needs a Decimal"),
    (("set_value", "assets", "abc"), "not a decimal"),
    (("set_value", "assets", "NaN"), "not a finite"),
    (("flip_sign", "assets", Decimal(1)), "takes no value"),
    (("remove", "assets", Decimal(1)), "takes no value"),
    (("double", "assets"), "unknown mutation kind"),
    (("remove", ""), "non-empty string"),
])
def test_malformed_mutations_fail_when_built(args, match):
    with pytest.raises(MutationError, match=match):
        Mutation(*args)


def test_mutation_value_accepts_int_and_decimal_strings_exactly():
    assert Mutation("set_value", "x", "12.50").value == Decimal("12.50")
    assert Mutation("set_value", "x", 3).value == Decimal(3)
    assert Mutation("set_value", "x", Decimal("1E+3")) == Mutation("set_value", "x", Decimal(1000))


def test_perturbation_is_a_million_last_digits_away_from_zero():
    f = tiny_filing()
    assert perturbation(f.fact_by_key("assets")) == Decimal("1E9")
    negative = apply_mutation(f, Mutation("flip_sign", "#3")).fact_by_key("#3")
    assert perturbation(negative) == Decimal("-1E9")
    assert perturbation(Fact(gaap("Assets"), "i", "5", "usd", "INF")) == Decimal(10**6)


# -- the must-show mutation test on real filings -------------------------------------------------

# (filing, rule) -> how many of up to 3 targets the finder must return (tol's only isolated 0126
# total: its other consistent totals are calculation children of another checked total).
CASES = {
    ("filings/aapl-10k-2023-09-30", "0015"): 3,
    ("filings/nflx-10q-2024-09-30", "0015"): 3,
    ("filings-rolled/tol-10k-2023-10-31", "0015"): 3,
    ("filings/aapl-10k-2023-09-30", "0126"): 3,
    ("filings/nflx-10k-2023-12-31", "0126"): 3,
    ("filings-rolled/tol-10k-2023-10-31", "0126"): 1,
    ("filings-rolled/hi-10k-2020-09-30", "0117"): 3,
    ("filings-rolled/tol-10k-2023-10-31", "0117"): 3,
    ("filings-rolled/cdif-10k-2023-12-31", "0117"): 3,
    ("filings/aapl-10k-2022-09-24", "0117"): 3,
}
LIMIT = 3


def signature(finding) -> tuple:
    j = finding.to_json()
    return (j["code"], j["concept"], j["fact_id"], j["context"], j["reported"], j["expected"])


# The mutations target the three agent rules; the other registered rules (e.g. 0009 on a flipped share
# count, 0004 on a perturbed Assets) would see them too, so only the agent rules are run here.
AGENT_RULES = tuple(agent_rules())


class RealFilings:
    """Loaded filings, their environments and unmutated reports, shared by the module's tests."""

    def __init__(self, data_root: Path) -> None:
        self.data_root = data_root
        self.cache: dict[str, tuple] = {}

    def get(self, name: str):
        if name not in self.cache:
            env = build_environment(load_filing(self.data_root / name))
            self.cache[name] = (env, run_rules(env, AGENT_RULES, data_root=self.data_root).findings)
        return self.cache[name]

    def targets(self, name: str, rule: str) -> list[MutationTarget]:
        env, _ = self.get(name)
        if rule == "0015":
            return sign_flip_targets(env, self.data_root, limit=LIMIT)
        if rule == "0126":
            return calc_total_targets(env, limit=LIMIT, data_root=self.data_root)
        return member_targets(env, limit=LIMIT, data_root=self.data_root)


@pytest.fixture(scope="module")
def real(data_root) -> RealFilings:
    return RealFilings(data_root)


@pytest.mark.slow
@pytest.mark.parametrize("name, rule", sorted(CASES), ids=lambda v: v.split("/")[-1])
def test_each_mutation_adds_exactly_its_one_finding(real, name, rule):
    env, before = real.get(name)
    targets = real.targets(name, rule)
    assert len(targets) == CASES[(name, rule)], [t.mutation for t in targets]
    assert len({t.mutation for t in targets}) == len(targets)
    for target in targets:
        assert target.rule == rule
        mutated = apply_mutation(env.filing, target.mutation)
        after = run_rules(build_environment(mutated), AGENT_RULES, data_root=real.data_root).findings
        added = Counter(map(signature, after)) - Counter(map(signature, before))
        assert not Counter(map(signature, before)) - Counter(map(signature, after)), target  # nothing else changes
        assert sum(added.values()) == 1, (target, added)
        new = next(f for f in after if signature(f) in added)
        assert (new.code, new.fact_id, new.reported, new.expected) == (
            target.code, target.focus, target.reported, target.expected)
        CHECKS[rule](env.filing, mutated, target, new)


def check_0015(original: Filing, mutated: Filing, target: MutationTarget, new) -> None:
    """A flipped positive fact: reported = the negated value, expected = its absolute value."""
    fact = original.fact_by_key(target.mutation.fact)
    assert target.mutation.kind == "flip_sign" and original.contexts[fact.context_id].dimensions == ()
    assert new.code.startswith("DQC.US.0015.") and new.concept == fact.concept and new.fact_id == fact.key
    assert fact.number > 0 and new.reported == -fact.number and new.expected == abs(new.reported)
    assert mutated.fact_by_key(fact.key).number == -fact.number


def check_0126(original: Filing, mutated: Filing, target: MutationTarget, new) -> None:
    """A perturbed total: expected = the weighted sum of its unchanged children, which matched the
    original total within tolerance (the check was consistent)."""
    total = original.fact_by_key(target.mutation.fact)
    assert new.code == "DQC.US.0126.9590" and new.fact_id == total.key
    assert new.reported == total.number + perturbation(total) == mutated.fact_by_key(total.key).number
    changed = {f.key for f in exact_duplicates(original, total)}
    children = new.evidence
    assert children and not changed & {e.fact_id for e in children}
    for e in children:
        assert original.fact_by_key(e.fact_id).number == e.value  # unchanged children
    assert new.expected == sum((e.weight if e.weight is not None else 1) * e.value for e in children)
    assert abs(total.number - new.expected) <= 2 * new.tolerance
    assert abs(new.reported - new.expected) > 100 * new.tolerance  # clearly outside


def check_0117(original: Filing, mutated: Filing, target: MutationTarget, new) -> None:
    """A perturbed member: the total is unchanged, expected = the member sum with the new value."""
    member = original.fact_by_key(target.mutation.fact)
    delta = perturbation(member)
    assert new.code == "DQC.US.0117.9574" and new.fact_id == target.focus != member.key
    total = original.fact_by_key(new.fact_id)
    assert original.contexts[total.context_id].dimensions == () and new.reported == total.number
    summed = {e.fact_id: e.value for e in new.evidence}
    assert summed[member.key] == member.number + delta == mutated.fact_by_key(member.key).number
    for key, value in summed.items():
        assert key == member.key or original.fact_by_key(key).number == value  # other members unchanged
    assert new.expected == sum(summed.values())
    assert abs(new.expected - delta - total.number) <= 2 * new.tolerance  # consistent before
    assert abs(new.reported - new.expected) > 100 * new.tolerance


CHECKS = {"0015": check_0015, "0126": check_0126, "0117": check_0117}


@pytest.mark.slow
def test_finders_are_deterministic_and_respect_limit(real):
    env, _ = real.get("filings/nflx-10q-2024-09-30")
    first = calc_total_targets(env, limit=2)
    assert len(first) == 2 and first == calc_total_targets(env, limit=2)
    assert all(env.filing.fact_by_key(t.focus).number > 0 for t in calc_total_targets(env))  # no data root: no negatives
    flips = sign_flip_targets(env, real.data_root)
    assert flips[:LIMIT] == sign_flip_targets(env, real.data_root, limit=LIMIT)


@pytest.mark.slow
def test_a_fact_shown_twice_is_flipped_in_both_places(real):
    """aapl 2023 shows year-end cash twice (balance sheet and cash-flow statement): both copies flip,
    the pair stays an identical duplicate, and 0015 reports it once, on the first copy."""
    name = "filings/aapl-10k-2023-09-30"
    env, before = real.get(name)
    target = next(t for t in sign_flip_targets(env, real.data_root)
                  if len(exact_duplicates(env.filing, env.filing.fact_by_key(t.focus))) > 1)
    copies = [f.key for f in exact_duplicates(env.filing, env.filing.fact_by_key(target.focus))]
    mutated = apply_mutation(env.filing, target.mutation)
    assert {mutated.fact_by_key(k).number for k in copies} == {target.reported}
    assert any(d.kind == "identical" and set(copies) <= set(d.facts) for d in mutated.duplicates)
    after = run_rules(build_environment(mutated), AGENT_RULES, data_root=real.data_root).findings
    added = Counter(map(signature, after)) - Counter(map(signature, before))
    assert [k[2] for k in added.elements()] == [copies[0]] == [target.focus]
