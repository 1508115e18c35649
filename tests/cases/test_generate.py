"""The case generator (``auditflow cases generate``) and the committed corpus (``cases/corpus``).

The generator's promise is that every expectation is what the checkers answer, so these tests do
not trust its own oracle: each generated case is re-read from its YAML, its environment is built the
way the plugin builds it, and the expectation is compared with the raw rule results (findings and
check records) of that environment, and with an actual audit by the deterministic policy. Small
filings keep it fast: the bundled sample, gevi (real 0117/0126 errors) and mdnc (real 0015 errors).
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from auditflow.cases import RunSettings, load_case_file, run_case
from auditflow.cases.emit import write_cases
from auditflow.cases.exclude import facts_audited_by
from auditflow.cases.filings import case_environment, resolve_filing
from auditflow.graphs.factory import shared_environment
from auditflow.cases.generate import GenerateError, GenerateOptions, audited_fact_of, generate
from auditflow.cases.reviews import load_reviews, parse_reviews
from auditflow.cli.cases_cmd import shown_case_set
from auditflow.cli.main import main
from auditflow.env.session import AuditSession
from auditflow.mutations import calc_total_targets, finding_signature
from auditflow.rules.finding import Outcome
from auditflow.rules.runner import run_rules

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
CORPUS = REPO / "cases" / "corpus"
GOLDEN = REPO / "tests" / "golden" / "real_filings.json"
FILINGS = (str(SAMPLE), "gevi-10q-2024-03-31", "mdnc-10k-2025-02-28")
KINDS = {"sign_flip", "member_perturbed", "dim_total_perturbed", "dim_total_removed", "calc_total_perturbed",
         "calc_child_perturbed", "consistent", "real_violation"}
RULES = ("0015", "0117", "0126")


def _options(data_root: Path, seed: int, **counts) -> GenerateOptions:
    sizes = {"per_rule": 6, "consistent": 2, "real": 2, **counts}
    return GenerateOptions(FILINGS, data_root, seed, reviews=tuple(load_reviews()), base_dir=REPO, **sizes)


def _write(data_root: Path, out: Path, seed: int, **counts) -> list[Path]:
    return write_cases(generate(_options(data_root, seed, **counts)).cases, out, header=["test"])


@pytest.fixture(scope="module")
def written(data_root: Path, tmp_path_factory) -> list[Path]:
    return _write(data_root, tmp_path_factory.mktemp("gen") / "out", seed=11)


@pytest.fixture(scope="module")
def cases(written: list[Path]):
    return [c for path in written for c in load_case_file(path)]


# -- determinism -----------------------------------------------------------------------------------

def test_same_seed_gives_identical_files_and_another_seed_other_cases(data_root: Path, written: list[Path],
                                                                      tmp_path: Path) -> None:
    first = {p.name: p.read_bytes() for p in written}
    again = _write(data_root, written[0].parent, seed=11)  # same place: relative paths are equal too
    assert {p.name: p.read_bytes() for p in again} == first
    other = _write(data_root, tmp_path / "other", seed=12)
    ids = lambda paths: {c.id for p in paths for c in load_case_file(p)}  # noqa: E731
    assert ids(other) != ids(written)


def test_finders_sample_with_a_seeded_generator(data_root: Path) -> None:
    env = shared_environment(resolve_filing("gevi-10q-2024-03-31", case_dir=REPO, data_root=data_root))
    pick = lambda seed: calc_total_targets(env, limit=3, data_root=data_root, rng=random.Random(seed))  # noqa: E731
    assert pick(1) == pick(1)
    assert {t.focus for t in pick(1)} <= {t.focus for t in calc_total_targets(env, data_root=data_root)}


# -- each kind's expectation is what the checkers say ------------------------------------------------

def test_every_kind_is_generated_with_its_tags(cases) -> None:
    assert {c.tags[1] for c in cases} == KINDS
    for c in cases:
        assert c.tags[0] == f"dqc_{c.rule}" and c.requires == ("data_root",)
        assert ("injected" in c.tags) == bool(c.inject)
        assert ("duration" in c.tags) == (".." in c.query.period)
        assert {"form_10k", "form_10q"} & set(c.tags) and {"inline", "xml"} & set(c.tags)
        assert c.expect.checked == {"decision", "triggered_rules", "reported_value", "expected_value"}


def test_expectations_match_the_rule_results(cases, data_root: Path) -> None:
    for case in cases:
        env = case_environment(case, data_root=data_root)
        focus = AuditSession(env, case.audit_query(), "single", data_root=data_root, required=()).focus
        results = run_rules(env, RULES, data_root=data_root).results
        findings = [f for r in results.values() for f in r.findings]
        twins = {f.key for f in env.filing.facts if f.concept == focus.concept and f.context_id == focus.context_id}
        about = [f for f in findings if f.fact_id in twins or twins & {e.fact_id for e in f.evidence}]
        e = case.expect
        assert e.reported_value == focus.number, case.id
        if e.decision == "violation":
            assert set(e.triggered_rules) == {f.code for f in about}, case.id
            assert e.expected_value in {f.expected for f in about if f.rule == case.rule}, case.id
        else:
            assert about == [] and e.triggered_rules == (), case.id
        if e.decision == "consistent":
            assert e.expected_value == e.reported_value
            assert any(c.outcome is Outcome.CONSISTENT and c.fact_id in twins for c in results[case.rule].checks)
        if e.decision == "unable_to_verify":
            assert e.expected_value is None
            assert any(c.fact_id in twins and c.reason.startswith("no total") for c in results["0117"].checks)
        if case.inject:  # an injected error adds exactly one finding (a removed total none) and removes none
            base = shared_environment(resolve_filing(case.filing, case_dir=case.file.parent, data_root=data_root))
            before = Counter(finding_signature(f) for r in run_rules(base, RULES, data_root=data_root).results.values()
                             for f in r.findings)
            after = Counter(finding_signature(f) for f in findings)
            assert not before - after and sum((after - before).values()) == (e.decision == "violation"), case.id


def test_the_deterministic_policy_passes_every_generated_case(cases, data_root: Path) -> None:
    settings = RunSettings(data_root=data_root)
    failed = [(c.id, o.judgement) for c in cases if not (o := run_case(c, settings)).passed]
    assert failed == []


def test_real_violations_cite_a_reviewed_real_finding(cases) -> None:
    real = [c for c in cases if "real_violation" in c.tags]
    assert {c.rule for c in real} == set(RULES)
    refs = {f"{r.ref}.": r for r in load_reviews()}  # a description ends with the review row it cites
    for c in real:
        cited = [r for ref, r in refs.items() if ref in c.description]
        assert len(cited) == 1 and cited[0].verdict == "real" and cited[0].filing == c.filing, c.id
        assert cited[0].code in c.expect.triggered_rules and c.inject == ()


# -- a held-back split ------------------------------------------------------------------------------

def test_exclude_passes_over_every_fact_another_set_audits(data_root: Path, written: list[Path], cases,
                                                          tmp_path: Path, capsys, monkeypatch) -> None:
    """A held-back split drawn with another seed alone audits some of the same facts (the face
    statements offer only so many, and real violations come from one reviewed list); with the first set
    excluded it audits none of them, and still fills its quotas where other candidates remain."""
    seen = facts_audited_by([written[0].parent])
    # a path-named filing is named as the generator names it (the sample's folder, not its xml/ sub-folder)
    assert 0 < len(seen) <= len(cases) and {f[0] for f in seen} == {"acme-10k-2024", *FILINGS[1:]}
    plain = generate(_options(data_root, seed=12))
    assert any(audited_fact_of(c) in seen for c in plain.cases)  # the overlap --exclude is there for
    held = generate(replace(_options(data_root, seed=12), exclude=seen))
    assert held.cases and not any(audited_fact_of(c) in seen for c in held.cases)
    assert any("passed over: a case of the excluded set audits them" in n for n in held.notes)
    # the command line: the files say what was excluded, and a missing set is an input error (exit 2)
    out = tmp_path / "held"
    argv = ["cases", "generate", *(x for f in FILINGS for x in ("--filing", f)), "--per-rule", "6", "--consistent", "2",
            "--real", "2", "--seed", "12", "--data-root", str(data_root)]
    monkeypatch.chdir(written[0].parent.parent)  # the set named by its absolute path, from the folder above it
    assert main([*argv, "--out", str(out), "--exclude", str(written[0].parent)]) == 0
    files = sorted(out.glob("*.case.yaml"))
    header = files[0].read_text(encoding="utf-8")
    assert f"no fact audited in {written[0].parent.name})" in header and str(written[0].parent) not in header
    assert not facts_audited_by([out]) & seen
    capsys.readouterr()
    assert main([*argv, "--out", str(tmp_path / "x"), "--exclude", str(tmp_path / "nowhere")]) == 2
    assert "--exclude" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_an_excluded_set_is_named_without_any_machine_s_path(tmp_path: Path) -> None:
    inside = tmp_path / "cases" / "hard"
    assert shown_case_set(str(inside), cwd=tmp_path) == "cases/hard"
    assert shown_case_set("cases/hard/", cwd=tmp_path) == "cases/hard"  # typed relative: as typed, normalised
    assert shown_case_set(str(inside), cwd=tmp_path / "elsewhere") == "hard"  # outside: its name alone


# -- errors ----------------------------------------------------------------------------------------

def test_unknown_filing_names_close_matches(data_root: Path, tmp_path: Path, capsys) -> None:
    with pytest.raises(GenerateError, match=r"unknown filing 'gevi-10q-2024-3-31'.*did you mean gevi-10q-2024-03-31"):
        generate(GenerateOptions(("gevi-10q-2024-3-31",), data_root))
    code = main(["cases", "generate", "--filing", "nope", "--out", str(tmp_path / "x"), "--data-root", str(data_root)])
    assert code == 2 and "unknown filing 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# -- the review of real findings -------------------------------------------------------------------

# The rules whose real findings are reviewed one by one (a verdict row each, read by auditflow.cases.reviews);
# the rules issue 42 added are reviewed per rule, in the document's "Rule review" table.
REVIEWED_PER_FINDING = frozenset(
    "0004 0005 0006 0008 0009 0015 0033 0036 0041 0043 0044 0046 0051 0052 0053 0054 0055 0060 0062 0068 0073 "
    "0076 0089 0095 0098 0117 0118 0123 0126".split())


def test_the_review_document_lists_every_golden_finding() -> None:
    reviews = load_reviews()
    assert Counter(r.verdict for r in reviews) == {"real": 275, "artefact": 9}  # 108 + 6 of 0015/0117/0126
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["filings"]
    expected = {(name.split("/")[-1], f[0], f[2]) for name, v in golden.items() for f in v["findings"]
                if f[0].split(".")[2] in REVIEWED_PER_FINDING}
    assert {(r.filing, r.code, r.fact_id) for r in reviews} == expected
    table = ("### x-10k-2024-12-31\n\nall reviewed as **real**:\n\n| concept | code | facts (period: reported) |\n"
             "|---|---|---|\n| A | 0015.1 | f1 FY2024: -1; f2 2024-12-31: -2 |\n\n"
             "| # | code | concept | fact | review |\n|---|---|---|---|---|\n| 3 | 0126.9590 | B | f | artefact |\n")
    assert [(r.fact_id, r.verdict) for r in parse_reviews(table)] == [("f1", "real"), ("f2", "real"), ("f", "artefact")]


def test_the_rule_review_has_a_row_per_registered_rule_with_its_golden_count() -> None:
    """Every registered rule has one row in docs/real-filings.md's rule review, and the row's findings
    count is the golden file's (so a rule that starts finding something must be reviewed again)."""
    from auditflow.rules import registry

    text = (REPO / "docs" / "real-filings.md").read_text(encoding="utf-8")
    section = text[text.index("## Rule review"):]
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| (\d{4}) \|(?:[^|]*\|){4} ([^|]*)\|", section, re.M)}
    assert sorted(rows) == sorted(registry.rule_ids())
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))["filings"]
    found = Counter(f[0].split(".")[2] for v in golden.values() for f in v["findings"])
    for rule, cell in rows.items():
        m = re.match(r"\s*\*\*(\d+)\*\*|\s*(0|—|-)\b", cell)
        assert m, (rule, cell)
        assert int(m.group(1) or 0) == found[rule], (rule, cell, found[rule])


# -- the committed corpus ---------------------------------------------------------------------------

def test_the_committed_corpus_meets_the_counts() -> None:
    corpus = [c for path in sorted(CORPUS.glob("*.case.yaml")) for c in load_case_file(path)]
    n = len(corpus)
    per_rule = Counter(c.rule for c in corpus)
    real = [c for c in corpus if "real_violation" in c.tags]
    consistent = [c for c in corpus if c.expect.decision == "consistent"]
    assert n >= 150 and all(per_rule[r] >= 40 for r in RULES), per_rule
    assert len(real) >= 30 and all(not c.inject and "docs/real-filings.md" in c.description for c in real)
    assert 3 * len(consistent) >= n
    assert len({c.id for c in corpus}) == n
    tags = Counter(t for c in corpus for t in c.tags)
    for group in (("form_10k", "form_10q"), ("instant", "duration"), ("inline", "xml"), ("large_filer", "small_filer")):
        assert all(tags[t] >= 5 for t in group), {t: tags[t] for t in group}
    refs = {f"{r.ref}.": r.verdict for r in load_reviews()}  # a description ends with the row it cites
    assert all([v for ref, v in refs.items() if ref in c.description] == ["real"] for c in real)
