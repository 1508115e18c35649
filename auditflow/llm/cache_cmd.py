"""``python -m auditflow.llm.cache_cmd stats|prune DIR``: look into an LLM cache and prune unused entries.

Pruning needs the keys every wanted run used: a JSON file holding a list of keys, or an object with
``used_keys`` (a :meth:`CacheStats.to_json`, e.g. what the pytest plugin writes), at the top or under
``cache``. Several files are merged, so the runs of each model and configuration can all be kept.
``add_cache_parser`` / ``run_cache`` let the ``auditflow`` CLI mount the same command.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from auditflow.errors import AuditflowError
from auditflow.llm.cache import prune, summary, unused_entries


def write_used_keys(path: Path, keys) -> int:
    """Write ``keys`` (sorted, deduplicated) as ``{"used_keys": [...]}``, the shape :func:`read_used_keys`
    reads; both the pytest plugin and ``auditflow eval`` write it. Returns how many keys were written."""
    ordered = sorted(set(keys))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"used_keys": ordered}, indent=2) + "\n", encoding="utf-8")
    return len(ordered)


def read_used_keys(paths: list[str]) -> set[str]:
    """The union of the used keys in ``paths`` (see the module docstring for the accepted shapes)."""
    used: set[str] = set()
    for p in paths:
        try:
            data = json.loads(Path(p).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise AuditflowError(f"{p}: cannot read the used cache keys: {exc}") from exc
        if isinstance(data, dict):
            data = data.get("used_keys", (data.get("cache") or {}).get("used_keys"))
        if not isinstance(data, list) or not all(isinstance(k, str) for k in data):
            raise AuditflowError(f"{p}: expected a list of cache keys or an object with used_keys")
        used.update(data)
    return used


def add_cache_parser(sub) -> None:
    p = sub.add_parser("cache", help="LLM call cache: statistics, and pruning of entries no run used")
    csub = p.add_subparsers(dest="cache_command", required=True)
    s = csub.add_parser("stats", help="entries, bytes and recorded cases")
    s.add_argument("dir")
    r = csub.add_parser("prune", help="delete entries that none of the given runs used")
    r.add_argument("dir")
    r.add_argument("--used", action="append", required=True, metavar="FILE",
                   help="JSON with the used keys of a run (repeatable; the union is kept)")
    r.add_argument("--dry-run", action="store_true", help="list what would be deleted")


def run_cache(args) -> int:
    if args.cache_command == "stats":
        json.dump(summary(args.dir), sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    used = read_used_keys(args.used)
    if args.dry_run:
        for p in unused_entries(args.dir, used):
            print(p)
        return 0
    print(f"removed {prune(args.dir, used)} unused cache entries from {args.dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m auditflow.llm.cache_cmd")
    add_cache_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return run_cache(args)
    except AuditflowError as exc:
        print(f"auditflow: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
