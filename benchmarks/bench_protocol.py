"""Per-case overhead of the audit protocol itself (issue 4): run_audit with the policy backend, warm.

    python benchmarks/bench_protocol.py [--data-root DIR] [--filings a,b] [--repeat 10]
                                        [--configs full,...] [--json out.json] [--append docs/benchmarks.md]

Cases: the bundled sample (two violations, two consistent facts) and, per real filing, the focus
facts of two 0015 sign flips and one 0126 perturbed total (or a 0117 member when the filing has no
isolated total): each audited on the mutated filing (violation) and on the untouched one
(consistent). Every environment is built once (no taxonomy, as in the tests); a first warm-up run per
case and configuration memoises the rules and checks the decision; after a garbage collection,
``--repeat`` timed runs of ``run_audit`` follow. Reported: median, p90 and max milliseconds per case, per configuration.
Goal: under 50 ms per case for "full".
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from _common import REPO, common_args, data_root_of, filing_dirs, machine_line, markdown_table

GOAL_MS = 50.0
DEFAULT_FILINGS = "aapl-10k-2023-09-30,tol-10k-2023-10-31,nflx-10k-2023-12-31"
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"
SAMPLE_QUERIES = (  # concept, period, expected decision
    ("us-gaap:Assets", "2024-12-31", "violation"),
    ("us-gaap:AccountsReceivableNetCurrent", "2024-12-31", "violation"),
    ("us-gaap:LiabilitiesAndStockholdersEquity", "2024-12-31", "consistent"),
    ("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2024-01-01..2024-12-31", "consistent"),
)


@dataclass
class Case:
    filing: str
    env: object
    query: object
    decision: str


def query_for(filing, key: str, name: str):
    from auditflow.env.query import AuditQuery

    fact = filing.fact_by_key(key)
    ctx = filing.contexts[fact.context_id]
    return AuditQuery(name, str(fact.concept), str(ctx.period), tuple((str(a), str(m)) for a, m in ctx.dimensions))


def sample_cases() -> list[Case]:
    from auditflow.env.query import AuditQuery
    from auditflow.graphs.environment import build_environment

    env = build_environment(SAMPLE)
    return [Case("acme-10k-2024 (sample)", env, AuditQuery("acme", c, p), d) for c, p, d in SAMPLE_QUERIES]


def filing_cases(path: Path, data_root: Path) -> list[Case]:
    """Two sign flips and one total (or member) of a real filing: mutated (violation) and untouched."""
    from auditflow.graphs.environment import build_environment
    from auditflow.mutations import apply_mutation, calc_total_targets, member_targets, sign_flip_targets
    from auditflow.xbrl.loader import load_filing

    env = build_environment(load_filing(path))
    targets = sign_flip_targets(env, data_root, limit=2)
    targets += calc_total_targets(env, limit=1, data_root=data_root) or member_targets(env, limit=1, data_root=data_root)
    cases = []
    for t in targets:
        mutated = apply_mutation(env.filing, t.mutation)
        cases.append(Case(path.name, build_environment(mutated), query_for(mutated, t.focus, path.name), "violation"))
        cases.append(Case(path.name, env, query_for(env.filing, t.focus, path.name), "consistent"))
    return cases


def time_case(case: Case, config: str, repeat: int, data_root: Path) -> list[float]:
    """Milliseconds of ``repeat`` warm runs, after one warm-up run whose decision is checked."""
    from auditflow.agents.audit import run_audit

    warm = run_audit(case.env, case.query, config=config, data_root=data_root)
    wanted = case.decision if config not in ("no-checks", "direct-llm") else "unable_to_verify"
    if warm.decision != wanted:
        raise SystemExit(f"{case.filing} {case.query.concept} {config}: {warm.decision}, expected {wanted}")
    gc.collect()  # as _common.timed: no garbage of the loads or earlier cases is billed to this one
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        run_audit(case.env, case.query, config=config, data_root=data_root)
        out.append((time.perf_counter() - t) * 1000)
    return out


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]


def measure(cases: list[Case], configs: list[str], repeat: int, data_root: Path) -> dict:
    """{(filing, config): [per-run ms...]} with an "all filings" row per configuration."""
    times: dict[tuple[str, str], list[float]] = {}
    for case in cases:
        for config in configs:
            ms = time_case(case, config, repeat, data_root)
            times.setdefault((case.filing, config), []).extend(ms)
            times.setdefault(("all", config), []).extend(ms)
    return times


def table(times: dict, cases: list[Case]) -> str:
    counts: dict[str, int] = {}
    for c in cases:
        counts[c.filing] = counts.get(c.filing, 0) + 1
    counts["all"] = len(cases)
    filings = list(dict.fromkeys(c.filing for c in cases)) + ["all"]
    configs = list(dict.fromkeys(config for _, config in times))
    rows = []
    for filing, config in sorted(times, key=lambda k: (filings.index(k[0]), configs.index(k[1]))):
        ms = times[(filing, config)]
        flag = "" if config != "full" else (" ✓" if p90(ms) < GOAL_MS else " ✗")
        rows.append([filing, config, str(counts[filing]), f"{statistics.median(ms):.1f}", f"{p90(ms):.1f}{flag}",
                     f"{max(ms):.1f}"])
    return markdown_table(["filing", "configuration", "cases", "median ms", "p90 ms", "max ms"], rows)


def section(text: str, argv: list[str], repeat: int) -> str:
    cmd = " ".join(["python benchmarks/bench_protocol.py"] + argv)
    return "\n".join([
        "## Protocol overhead (issue 4)", "",
        "Per-case wall time of `run_audit` with the deterministic policy backend on a warm environment "
        f"(built once, rules memoised by a warm-up run; then {repeat} timed runs per case and configuration). "
        "Violation cases are real filings with one injected error (0015 sign flip, 0126 total or 0117 member), "
        "consistent cases the same facts untouched. Goal: under 50 ms per case for `full` (✓: p90 under goal).", "",
        "```sh", cmd, "```", "", machine_line(), "", text, "",
    ])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    common_args(parser)
    parser.set_defaults(repeat=10, filings=DEFAULT_FILINGS)
    parser.add_argument("--configs", default=None, help="comma-separated configurations (default: all)")
    parser.add_argument("--append", metavar="PATH", help="append the Markdown section to this file")
    args = parser.parse_args(argv)
    from auditflow.agents.configs import CONFIGS

    data_root = data_root_of(args)
    configs = args.configs.split(",") if args.configs else list(CONFIGS)
    cases = sample_cases() + [c for d in filing_dirs(data_root, args.filings) for c in filing_cases(d, data_root)]
    times = measure(cases, configs, args.repeat, data_root)
    out = section(table(times, cases), argv, args.repeat)
    print(out)
    if args.json:
        Path(args.json).write_text(json.dumps({f"{f}|{c}": ms for (f, c), ms in times.items()}, indent=1))
    if args.append:
        with open(args.append, "a", encoding="utf-8") as fh:
            fh.write(("\n" if Path(args.append).stat().st_size else "") + out)


if __name__ == "__main__":
    main(sys.argv[1:])
