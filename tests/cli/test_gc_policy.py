"""Issue 21: a one-shot ``auditflow check`` runs no collection pass over the filing it loaded.

The loader and the rules make no reference cycles (tests/xbrl/test_gc_pause.py), so a pass over a loaded
filing frees nothing; on the Apple 10-K the first pass after the rules walked the whole filing (7-13 ms
of a 0.2 s check). ``auditflow.cli.gc_policy`` sets a checked filing aside (``gc.freeze``) instead.
Checked in a fresh subprocess with ``gc.callbacks``: on a filing-cache hit no pass starts once the
filing is built.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.rules import registry
from cli_probe import run_probe

# Runs main() in this process; records every collection that starts after the first environment was
# built, and prints them with the number of rules the JSON report checked.
_PROBE = """
import contextlib, gc, io, json, sys
sys.path.insert(0, sys.argv[1])
from auditflow.graphs import factory
from auditflow.cli.main import main
built, passes = [], []
build = factory.EnvironmentFactory.build
def recording_build(self, arg):
    env = build(self, arg)
    built.append(arg)
    return env
factory.EnvironmentFactory.build = recording_build
gc.callbacks.append(lambda phase, info: passes.append(info["generation"]) if phase == "start" and built else None)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[2:])
sys.__stderr__.write('PASSES=' + json.dumps({"passes": passes, "built": built, "code": code,
                                             "rules": len(json.loads(out.getvalue())["filings"][0]["checked"])}) + '\\n')
"""


def _run(args: list[str], tmp_path: Path) -> dict:
    return run_probe(_PROBE, args, tmp_path, "PASSES")


def test_no_collection_pass_after_a_filing_cache_hit_is_built(data_root, tmp_path):
    """The command of issue 21's goal: the second check of the Apple 10-K (a filing-cache hit). After a
    parse the rules of that run may still reach the young-pass threshold (they then walk the rules'
    own objects: the filing is set aside either way)."""
    args = ["check", "aapl-10k-2023-09-30", "--data-root", str(data_root), "--format", "json"]
    _run(args, tmp_path)  # a parse: the filing cache is empty
    hit = _run(args, tmp_path)
    assert hit["built"] == ["aapl-10k-2023-09-30"]
    assert hit["rules"] == len(registry.rule_ids()) and hit["code"] in (0, 1)
    assert hit["passes"] == [], hit
