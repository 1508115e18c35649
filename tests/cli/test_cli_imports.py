"""Issue 21: a command imports only what it runs.

``auditflow check`` and ``auditflow inspect`` must import neither the LLM stack (langchain, langgraph,
langsmith) nor networkx: each is a tenth of a second or more of a one-shot run. Checked in a fresh
subprocess through ``sys.modules``, on the bundled sample and on a real filing of the data root.
``inspect --graph`` is the one path that builds (and so imports) the networkx filing graph.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_probe import run_probe
HEAVY = ("langchain", "langchain_core", "langgraph", "langsmith", "networkx")

# Runs main() in this process, then prints the heavy top-level packages that were imported.
_PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from auditflow.cli.main import main
try:
    main(sys.argv[2:])
finally:
    heavy = sorted({m.split('.')[0] for m in sys.modules} & set(%s))
    sys.__stderr__.write('HEAVY=' + json.dumps(heavy) + '\\n')
""" % json.dumps(list(HEAVY))


def _imported(args: list[str], tmp_path: Path) -> list[str]:
    return run_probe(_PROBE, args, tmp_path, "HEAVY")


@pytest.mark.parametrize("args", [
    ["check", "--format", "json", "--no-taxonomy"],
    ["check", "--no-taxonomy"],
    ["check", "--format", "log", "--no-taxonomy"],
    ["inspect", "--no-taxonomy"],
    ["inspect", "--format", "json", "--facts", "--no-taxonomy"],
])
def test_check_and_inspect_import_no_llm_stack_nor_networkx(args, tmp_path):
    assert _imported(args, tmp_path) == []


@pytest.mark.parametrize("command", ["check", "inspect"])
def test_on_a_real_filing_with_the_taxonomy(command, data_root, tmp_path):
    args = [command, "aapl-10k-2023-09-30", "--data-root", str(data_root), "--format", "json"]
    assert _imported(args, tmp_path) == []


# Modules a filing-cache hit does not run: the XML parser's (a hit reads no XML), difflib (the taxonomy
# graph's typo suggestions) and tempfile (writing a cache entry). Importing them was about a seventh of
# ``check``'s imports. Nor lxml itself: the taxonomy packages' META-INF is read from its memo
# (auditflow.xbrl.package_meta; importing lxml was about 4% of a hit).
NOT_ON_A_HIT = ("auditflow.xbrl.loader", "auditflow.xbrl.dts", "auditflow.xbrl.instance", "auditflow.xbrl.linkbase",
                "auditflow.xbrl.discovery", "auditflow.xbrl.prefix_repair", "auditflow.xbrl.duplicates",
                "auditflow.xbrl.inline", "difflib", "tempfile", "lxml.etree", "auditflow.xbrl.safexml",
                "auditflow.xbrl.schema")

_PROBE_MODULES = """
import io, json, sys, contextlib
sys.path.insert(0, sys.argv[1])
from auditflow.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[2:])
sys.__stderr__.write('MODULES=' + json.dumps(sorted(sys.modules)) + '\\n')
"""


def test_a_filing_cache_hit_imports_no_parser(data_root, tmp_path):
    """The second check of a filing is a filing-cache hit: it must not import the parser's modules (nor
    the other modules of ``NOT_ON_A_HIT``)."""
    args = ["check", "aapl-10k-2023-09-30", "--data-root", str(data_root), "--format", "json"]
    loaded = [run_probe(_PROBE_MODULES, args, tmp_path, "MODULES") for _ in range(2)]
    assert "auditflow.xbrl.loader" in loaded[0]  # the first run parsed the filing (and filled the cache)
    assert sorted(set(NOT_ON_A_HIT) & set(loaded[1])) == []


def test_inspect_graph_builds_the_graph_on_demand(tmp_path):
    out = tmp_path / "filing.graphml"
    assert _imported(["inspect", "--no-taxonomy", "--graph", str(out)], tmp_path) == ["networkx"]
    import networkx as nx

    g = nx.read_graphml(out)
    assert any(n.startswith("fact:") for n in g.nodes) and any(n.startswith("concept:") for n in g.nodes)
    assert g.number_of_edges() > g.number_of_nodes() / 2


def test_every_command_keeps_its_help_line():
    """The stubs of the commands not being run carry the same one-line help as their full parsers."""
    import argparse

    from auditflow.cli import main as cli

    for name, (module, adder) in cli._LAZY_COMMANDS.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers()
        __import__(module, fromlist=[adder])
        getattr(sys.modules[module], adder)(sub)
        helps = {a.dest: a.help for a in sub._choices_actions}
        assert helps[name] == cli._LAZY_HELP[name]
