"""What a speed-up must not change, as one digest line per filing: run it in two trees and diff.

For every filing of the data root, with the filing cache off (every document parsed): a digest of
each field of the loaded :class:`Filing` (its ``repr``, labels included), and of the JSON of every
registered rule's results (``CheckReport.to_json()``, timings left out). Issue 21's speed-ups were
checked with it against the tree before them (``git worktree add``):

    python benchmarks/same_results.py > after.txt
    (cd ../base && python benchmarks/same_results.py > ../after-base.txt)   # or any older tree
    diff after.txt ../after-base.txt && echo identical
"""
from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path

from _common import common_args, data_root_of, filing_dirs

FIELDS = ("documents", "facts", "contexts", "units", "namespaces", "concepts", "arcs", "labels", "roles",
          "imported_urls", "duplicates", "warnings", "is_inline")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_args(parser)
    args = parser.parse_args(argv)
    data_root = data_root_of(args)

    from auditflow.graphs.environment import build_environment
    from auditflow.rules.runner import parse_rules, run_rules
    from auditflow.xbrl.loader import load_filing
    from auditflow.xbrl.packages import TaxonomySet

    tset = TaxonomySet.discover(data_root)
    every = parse_rules("all")
    cache = Path(tempfile.mkdtemp(prefix="af-same-results-"))
    for d in filing_dirs(data_root, args.filings):
        filing = load_filing(d, external_resolver=tset.concept_for_locator)
        loaded = " ".join(f"{k}={_digest(repr(getattr(filing, k)))}" for k in FIELDS)
        env = build_environment(d, taxonomy_set=tset, taxonomy=None, filing_cache=False, cache_dir=cache)
        report = run_rules(env, every, data_root=data_root).to_json()
        report.pop("timings", None)
        checked = _digest(json.dumps(report, sort_keys=True, default=str))
        print(f"{d.name} rules={len(every)} check={checked} {loaded}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
