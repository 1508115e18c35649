"""Golden results of every registered DQC rule (auditflow/rules/registry.py) on the 29 real filings of the data root.

``tests/golden/real_filings.json`` holds, per filing folder (``filings/<name>`` and
``filings-rolled/<name>``), the sorted findings as ``[code, concept, fact_id, period, reported,
expected]`` and the checked / not-applicable counts per rule. Every finding in it was reviewed by
hand in ``docs/real-filings.md`` (real filer error, re-tagging artefact or fault of ours).

The rules are run on an environment built *without* the taxonomy graph: no rule reads it, and the
findings and counts were checked to be identical with the taxonomy loaded (the default of
``auditflow check``). That keeps this test free of the taxonomy cache and under ~15 s.

A difference means a checker (or the loader) changed behaviour on real data. If the change is
intended, review the new findings in ``docs/real-filings.md`` and regenerate the golden file.

A registered rule the golden file does not record yet (a rule just added) must find nothing on the
real filings: its module, doc and test file are then all it takes. A new rule that does find
something is a finding on a real filing to review by hand, so it is recorded here too:

    python tests/rules/test_real_filings_golden.py --update
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # so that ``python tests/rules/test_real_filings_golden.py`` works from anywhere
    sys.path.insert(0, str(REPO))

from auditflow.graphs.environment import build_environment  # noqa: E402
from auditflow.rules.finding import dec_str  # noqa: E402
from auditflow.rules.runner import RULES, CheckReport, run_rules  # noqa: E402

GOLDEN = REPO / "tests" / "golden" / "real_filings.json"
SUBFOLDERS = ("filings", "filings-rolled")
REGENERATE = "python tests/rules/test_real_filings_golden.py --update"
ABOUT = (
    "Results of every registered DQC rule on the real filings of the data root, reviewed in docs/real-filings.md. "
    "findings: sorted [code, concept, fact_id, period, reported, expected]. Checked by "
    f"tests/rules/test_real_filings_golden.py; regenerate with: {REGENERATE}"
)


# -- producing the results -------------------------------------------------------------------------

def filing_keys(data_root: Path) -> list[str]:
    """``filings/<name>`` and ``filings-rolled/<name>`` for every filing folder of the data root."""
    return [f"{sub}/{p.name}" for sub in SUBFOLDERS for p in sorted((data_root / sub).iterdir()) if p.is_dir()]


def summarise(report: CheckReport) -> dict:
    """The comparable part of a report: sorted finding rows and per-rule counts."""
    rows = [
        [f.code, str(f.concept), f.fact_id, str(f.period) if f.period is not None else None,
         dec_str(f.reported), dec_str(f.expected)]
        for f in report.findings
    ]
    rows.sort(key=lambda r: tuple("" if v is None else v for v in r))
    return {
        "checked": {rule: report.results[rule].checked for rule in RULES},
        "not_applicable": {rule: report.results[rule].not_applicable for rule in RULES},
        "findings": rows,
    }


def run_filing(data_root: Path, key: str) -> dict:
    """Run every registered rule on one filing folder (no taxonomy graph) and summarise."""
    env = build_environment(data_root / key)
    return summarise(run_rules(env, RULES, data_root=data_root))


def recorded_part(summary: dict, rules: set[str]) -> tuple[dict, list[list]]:
    """The summary cut to ``rules`` (those the golden file records), and the findings of the others."""
    def rule_of(row: list) -> str:
        return row[0].split(".")[2]

    part = {"checked": {r: n for r, n in summary["checked"].items() if r in rules},
            "not_applicable": {r: n for r, n in summary["not_applicable"].items() if r in rules},
            "findings": [row for row in summary["findings"] if rule_of(row) in rules]}
    return part, [row for row in summary["findings"] if rule_of(row) not in rules]


def dumps(results: dict[str, dict]) -> str:
    """Stable JSON with one finding per line, so that a changed finding shows as one changed line."""
    out = ["{", f'  "about": {json.dumps(ABOUT)},', '  "filings": {']
    keys = sorted(results)
    for i, key in enumerate(keys):
        out.append(f"    {json.dumps(key)}: " + _dump_filing(results[key], "    ") + ("," if i < len(keys) - 1 else ""))
    out += ["  }", "}"]
    return "\n".join(out) + "\n"


def _dump_filing(entry: dict, indent: str) -> str:
    rows = entry["findings"]
    lines = ["{",
             f'{indent}  "checked": {json.dumps(entry["checked"], sort_keys=True)},',
             f'{indent}  "not_applicable": {json.dumps(entry["not_applicable"], sort_keys=True)},']
    if not rows:
        lines.append(f'{indent}  "findings": []')
    else:
        lines.append(f'{indent}  "findings": [')
        lines += [f"{indent}    {json.dumps(r)}" + ("," if j < len(rows) - 1 else "") for j, r in enumerate(rows)]
        lines.append(f"{indent}  ]")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def write_golden(data_root: Path, path: Path | None = None) -> dict[str, dict]:
    path = path or GOLDEN
    results = {key: run_filing(data_root, key) for key in filing_keys(data_root)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(results), encoding="utf-8")
    return results


def load_golden(path: Path | None = None) -> dict[str, dict]:
    return json.loads((path or GOLDEN).read_text(encoding="utf-8"))["filings"]


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def diff_text(key: str, expected: dict, actual: dict) -> str:
    a = _dump_filing(expected, "").splitlines()
    b = _dump_filing(actual, "").splitlines()
    return "\n".join(difflib.unified_diff(a, b, f"golden {key}", f"now {key}", lineterm="", n=2))


# -- tests -----------------------------------------------------------------------------------------

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def golden() -> dict[str, dict]:
    if not GOLDEN.exists():
        pytest.fail(f"{GOLDEN} is missing; generate it with: {REGENERATE}")
    return load_golden()


def test_golden_covers_every_real_filing(data_root, golden):
    on_disk = set(filing_keys(data_root))
    assert len(on_disk) == 29, f"expected 11 + 18 real filings under {data_root}, found {len(on_disk)}"
    assert set(golden) == on_disk, (
        f"golden file and data root disagree: only in golden {sorted(set(golden) - on_disk)}, "
        f"only on disk {sorted(on_disk - set(golden))}; regenerate with: {REGENERATE}"
    )


def _golden_keys() -> list[str]:
    """Parametrisation: one test per filing of the golden file (coverage is checked above)."""
    return sorted(load_golden()) if GOLDEN.exists() else ["<golden file missing>"]


@pytest.mark.parametrize("key", _golden_keys())
def test_real_filing_matches_golden(key, data_root, golden):
    if key not in golden:
        pytest.fail(f"{key}: not in {GOLDEN}; regenerate with: {REGENERATE}")
    expected = golden[key]
    actual, unrecorded = recorded_part(run_filing(data_root, key), set(expected["checked"]))
    if unrecorded:
        pytest.fail(f"{key}: rules the golden file does not record yet find {unrecorded}; review them in "
                    f"docs/real-filings.md, then regenerate: {REGENERATE}", pytrace=False)
    if actual != expected:
        pytest.fail(
            f"{key}: DQC results differ from the golden file {_shown(GOLDEN)}\n"
            f"{diff_text(key, expected, actual)}\n"
            f"If the change is intended, review the findings in docs/real-filings.md, then regenerate: {REGENERATE}",
            pytrace=False,
        )


# -- command line ----------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    from auditflow.dataroot import resolve_data_root

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help=f"rewrite {_shown(GOLDEN)} from the current code")
    parser.add_argument("--data-root", default=None, help="data root (default: $AUDITFLOW_DATA_ROOT, then ../shared/data)")
    args = parser.parse_args(argv)
    data_root = resolve_data_root(args.data_root)
    if args.update:
        results = write_golden(data_root)
        total = sum(len(r["findings"]) for r in results.values())
        print(f"wrote {GOLDEN} ({len(results)} filings, {total} findings)")
        return 0
    golden = load_golden()
    bad = 0
    for key in filing_keys(data_root):
        actual = run_filing(data_root, key)
        if golden.get(key) != actual:
            bad += 1
            print(diff_text(key, golden.get(key, {"checked": {}, "not_applicable": {}, "findings": []}), actual))
    print("golden file up to date" if not bad else f"{bad} filing(s) differ; rerun with --update to accept")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
