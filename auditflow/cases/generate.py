"""The case generator behind ``auditflow cases generate``: a FinMR-style corpus from real filings.

What it makes, per DQC rule family (docs/metrics.md and cases/corpus/README.md, how FinMR-style cases are made):

* **injected** errors, found and screened by :mod:`auditflow.mutations` so each adds exactly one
  finding: 0015 sign flips of listed non-negative facts; 0117 perturbed members, perturbed totals
  and removed totals of face-statement tables; 0126 perturbed totals and perturbed children on
  statements without tables;
* **consistent** cases: untouched facts the family's checker passes and no checker reports (a
  suite of violations only would make verdict accuracy meaningless);
* **real** violations: findings of the untouched filings that the hand review in
  ``docs/real-filings.md`` classed as real filer errors (re-tagging artefacts are left out).

Every candidate is checked by :mod:`auditflow.cases.generated` before it is kept.

**Sampling.** ``per_rule``, ``consistent`` and ``real`` are counts per rule family over all the
given filings. Candidates are drawn lazily (screening a mutation costs a re-run of the rules) in a
round robin: over the family's kinds, and within a kind over the filings, so the cases spread over
filings instead of piling up on the largest one. Filings of a rarer format (inline among XML) come
first in each kind's cycle so that they are represented; the order is otherwise a seeded shuffle per
kind, and candidates within a filing are shuffled with a generator seeded by (seed, filing, kind).
The same inputs and seed give the same cases, in the same order. A candidate auditing a fact in
``exclude`` (another case set's, :mod:`auditflow.cases.exclude`) is passed over, so that a held-back
split shares no fact with the set it checks.
"""
from __future__ import annotations

import difflib
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

from auditflow.cases.errors import CaseInputError, GenerateError
from auditflow.cases.filing_profile import filing_profile
from auditflow.cases.exclude import AuditedFact, audited_fact
from auditflow.cases.filings import resolve_filing
from auditflow.graphs.factory import FILING_FOLDERS, filing_name, shared_environment
from auditflow.cases.generated import (
    FilingSource, GeneratedCase, consistent_case, injected_case, real_case, removal_case,
)
from auditflow.cases.reviews import ReviewedFinding
from auditflow.errors import AuditflowError
from auditflow.mutations import (
    iter_child_targets, iter_member_targets, iter_sign_flip_targets, iter_total_removals, iter_total_targets,
)
from auditflow.rules.finding import Outcome
from auditflow.rules.runner import run_rules

# The default case families: for each agent rule, the mutations of auditflow.mutations it must report.
FAMILY_KINDS: dict[str, tuple[str, ...]] = {
    "0015": ("sign_flip",),
    "0117": ("member_perturbed", "dim_total_perturbed", "dim_total_removed"),
    "0126": ("calc_total_perturbed", "calc_child_perturbed"),
}
RULES = tuple(FAMILY_KINDS)
Progress = Callable[[str, int, int], None]  # (message, cases done, cases wanted)
T = TypeVar("T")


@dataclass(frozen=True)
class GenerateOptions:
    """What to generate. Counts are per rule family, over all the filings together."""

    filings: tuple[str, ...]
    data_root: Path
    seed: int = 0
    per_rule: int = 26
    consistent: int = 20
    real: int = 12
    reviews: tuple[ReviewedFinding, ...] = ()
    base_dir: Path = field(default_factory=Path.cwd)  # where relative filing paths are looked up
    # facts another case set audits (auditflow.cases.exclude): never drawn, so a held-back split shares none
    exclude: frozenset[AuditedFact] = frozenset()


@dataclass
class GenerationResult:
    """The cases (in a stable order) and notes worth telling the user (shortfalls, unreviewed findings)."""

    cases: list[GeneratedCase]
    notes: list[str] = field(default_factory=list)

    def counts(self) -> Counter:
        """Cases per (rule family, kind)."""
        return Counter((c.rule, c.kind) for c in self.cases)


def generate(options: GenerateOptions, *, progress: Progress | None = None) -> GenerationResult:
    """Generate the cases; ``progress`` hears about each filing loaded and each case kept.

    :raises GenerateError: an unknown filing (with the close names under the data root).
    """
    report = progress or (lambda message, done, total: None)
    paths = [(spec, _resolve(spec, options)) for spec in options.filings]
    sources = []
    for i, (spec, path) in enumerate(paths):
        report(f"loading {spec} ({i + 1}/{len(paths)})", 0, 0)
        sources.append(_source(spec, path, options))
    wanted = len(RULES) * (options.per_rule + options.consistent + options.real)
    picked: list[GeneratedCase] = []
    notes: list[str] = []
    seen: set[tuple] = set()
    excluded: set[AuditedFact] = set()

    def keep(cases: Iterable[GeneratedCase], quota: int, what: str) -> None:
        got = 0
        if quota <= 0:
            return
        for case in cases:
            if case.key in seen:
                continue
            if (fact := audited_fact_of(case)) in options.exclude:
                excluded.add(fact)
                continue
            seen.add(case.key)
            picked.append(case)
            got += 1
            report(f"{case.rule} {case.kind}: {case.id}", len(picked), wanted)
            if got >= quota:
                return
        notes.append(f"{what}: {got} of {quota} wanted (no more candidates passed the checks)")

    reviews = _reviews_by_filing(options.reviews)
    for rule in RULES:
        keep(_real_cases(sources, rule, reviews, options.seed, notes), options.real, f"{rule} real violations")
        kinds = [_kind_cases(sources, kind, options.seed) for kind in FAMILY_KINDS[rule]]
        keep(round_robin(kinds), options.per_rule, f"{rule} injected")
        keep(_consistent_cases(sources, rule, options.seed), options.consistent, f"{rule} consistent")
    if excluded:
        notes.append(f"{len(excluded)} fact(s) passed over: a case of the excluded set audits them")
    picked.sort(key=lambda c: (c.filing.name, c.rule, _KIND_ORDER[c.kind], c.id))
    return GenerationResult(_unique_ids(picked), notes)


def audited_fact_of(case: GeneratedCase) -> AuditedFact:
    """The fact a generated case audits, comparable with :func:`auditflow.cases.exclude.facts_audited_by`'s."""
    q = case.query  # before questions are worded, the query names the audited fact itself
    return audited_fact(case.filing.name, q.concept or "", q.period or "", q.dimensions)


_KIND_ORDER = {k: i for i, k in enumerate(
    ["real_violation", *(k for r in RULES for k in FAMILY_KINDS[r]), "consistent"])}


def round_robin(iterators: Iterable[Iterator[T]]) -> Iterator[T]:
    """One item from each iterator in turn, dropping exhausted ones, until all are exhausted."""
    live = list(iterators)
    while live:
        for it in list(live):
            try:
                yield next(it)
            except StopIteration:
                live.remove(it)


# -- filings ---------------------------------------------------------------------------------------

def _resolve(spec: str, options: GenerateOptions) -> Path:
    try:
        return resolve_filing(spec, case_dir=options.base_dir, data_root=options.data_root, confine=False)  # --filing
    except CaseInputError:
        known = sorted(p.name for folder in FILING_FOLDERS if (options.data_root / folder).is_dir()
                       for p in (options.data_root / folder).iterdir() if p.is_dir())
        close = difflib.get_close_matches(spec, known, n=5, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else f"known filings: {', '.join(known) or 'none'}"
        raise GenerateError(
            f"unknown filing {spec!r}: not a path and not a folder under {options.data_root}/filings/ or "
            f"filings-rolled/; {hint}") from None


def _source(spec: str, path: Path, options: GenerateOptions) -> FilingSource:
    """A loaded filing; a data-root name stays a name in the cases, a path stays a path (named after
    its folder, or its parent's when the folder only says the format, as in ``acme-10k-2024/xml``)."""
    by_name = Path(spec).name == spec and any((options.data_root / folder / spec).resolve() == path
                                              for folder in FILING_FOLDERS)
    name = spec if by_name else filing_name(path)
    env = shared_environment(path)
    return FilingSource(name, spec if by_name else str(path), env,
                        filing_profile(env.filing, data_root=options.data_root), options.data_root)


def _order(sources: list[FilingSource], seed: int, what: str) -> list[FilingSource]:
    """Rarer formats first (so inline filings are represented), then a seeded shuffle per ``what``."""
    formats = Counter(s.profile.format for s in sources)
    rng = random.Random(f"{seed}:order:{what}")
    shuffled = sorted(sources, key=lambda s: s.name)
    rng.shuffle(shuffled)
    rank = {s.name: i for i, s in enumerate(shuffled)}
    return sorted(sources, key=lambda s: (formats[s.profile.format], rank[s.name]))


def _rng(seed: int, src: FilingSource, what: str) -> random.Random:
    return random.Random(f"{seed}:{src.name}:{what}")


# -- candidate streams -----------------------------------------------------------------------------

def _kind_cases(sources: list[FilingSource], kind: str, seed: int) -> Iterator[GeneratedCase]:
    """Checked injected cases of one kind, round robin over the filings."""
    return round_robin(_injected(src, kind, _rng(seed, src, kind)) for src in _order(sources, seed, kind))


def _injected(src: FilingSource, kind: str, rng: random.Random) -> Iterator[GeneratedCase]:
    root = src.data_root
    if kind == "dim_total_removed":
        for target in iter_total_removals(src.env, data_root=root, rng=rng):
            if (case := removal_case(src, target)) is not None:
                yield case
        return
    targets = {
        "sign_flip": lambda: iter_sign_flip_targets(src.env, root, rng=rng),
        "member_perturbed": lambda: iter_member_targets(src.env, data_root=root, rng=rng),
        "dim_total_perturbed": lambda: iter_total_targets(src.env, "0117", data_root=root, rng=rng),
        "calc_total_perturbed": lambda: iter_total_targets(src.env, "0126", data_root=root, rng=rng),
        "calc_child_perturbed": lambda: iter_child_targets(src.env, data_root=root, rng=rng),
    }[kind]()
    queries: set = set()
    for target in targets:
        try:
            case = injected_case(src, kind, target)
        except AuditflowError:  # a change the loader refuses (e.g. a perturbed value out of range): not a case
            continue
        if case is not None and case.query not in queries:  # one case per audited fact and kind
            queries.add(case.query)
            yield case


def _consistent_cases(sources: list[FilingSource], rule: str, seed: int) -> Iterator[GeneratedCase]:
    what = f"consistent-{rule}"
    return round_robin(_consistent(src, rule, _rng(seed, src, what)) for src in _order(sources, seed, what))


def _consistent(src: FilingSource, rule: str, rng: random.Random) -> Iterator[GeneratedCase]:
    result = run_rules(src.env, (rule,), data_root=src.data_root).results[rule]
    keys = list(dict.fromkeys(c.fact_id for c in result.checks if c.outcome is Outcome.CONSISTENT and c.fact_id))
    rng.shuffle(keys)
    for key in keys:
        if (case := consistent_case(src, rule, key)) is not None:
            yield case


def _reviews_by_filing(reviews: Iterable[ReviewedFinding]) -> dict[str, dict[tuple[str, str], ReviewedFinding]]:
    out: dict[str, dict[tuple[str, str], ReviewedFinding]] = {}
    for r in reviews:
        out.setdefault(r.filing, {})[(r.code, r.fact_id)] = r
    return out


def _real_cases(sources: list[FilingSource], rule: str, reviews: dict, seed: int,
                notes: list[str]) -> Iterator[GeneratedCase]:
    what = f"real-{rule}"
    return round_robin(_real(src, rule, reviews.get(src.name, {}), _rng(seed, src, what), notes)
                       for src in _order(sources, seed, what))


def _real(src: FilingSource, rule: str, reviewed: dict, rng: random.Random,
          notes: list[str]) -> Iterator[GeneratedCase]:
    """Findings of the untouched filing reviewed as real; unreviewed ones are noted, artefacts skipped."""
    findings = run_rules(src.env, (rule,), data_root=src.data_root).results[rule].findings
    real = []
    for f in findings:
        review = reviewed.get((f.code, f.fact_id))
        if review is None:
            notes.append(f"{src.name}: {f.code} on {f.fact_id} is not in the review of real findings; left out")
        elif review.verdict == "real":
            real.append((f.fact_id, review))
    rng.shuffle(real)
    for fact_id, review in real:
        if (case := real_case(src, rule, fact_id, review)) is not None:
            yield case


def _unique_ids(cases: list[GeneratedCase]) -> list[GeneratedCase]:
    """Ids made unique in order (``-2``, ``-3`` ...): two cases may audit the same fact differently."""
    from dataclasses import replace

    used: Counter = Counter()
    out = []
    for c in cases:
        used[c.id] += 1
        out.append(c if used[c.id] == 1 else replace(c, id=f"{c.id}-{used[c.id]}"))
    return out
