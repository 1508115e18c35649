"""``docs/results.md`` (the corpus), ``docs/pilot/results.md`` (the pilot, with the LLM ablations),
``docs/hard/results.md`` (the hard corpus), ``docs/hard-holdout/results.md`` (its held-back split) and
``docs/natural/results.md`` with ``docs/natural/holdout/results.md`` (questions as people word them) are
what ``auditflow eval`` writes from the committed LLM cache, byte for byte.

The command is read from each file itself (the block it prints), run again in replay mode with the
provider model replaced by one that fails on any call, and the new ``results.md`` must equal the
committed one. A change to the protocol, prompts, checkers or cases that moves any number shows up
here, with the command that re-records what changed. Each folder's ``results.json`` is compared too:
``docs/results.md`` shows the hard corpus's and the holdout's beside its own, and ``docs/hard/results.md``
the holdout's, read from those files (``--with-results``); so is ``results.xlsx``.
"""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from auditflow.cli.eval_cmd import EXIT_INCOMPLETE
from auditflow.cli.main import main
from auditflow.eval.markdown import PROBLEMS_HEADING
from auditflow.llm import factory

REPO = Path(__file__).resolve().parents[2]
RESULTS = (REPO / "docs" / "results.md", REPO / "docs" / "pilot" / "results.md", REPO / "docs" / "hard" / "results.md",
           REPO / "docs" / "hard-holdout" / "results.md", REPO / "docs" / "natural" / "results.md",
           REPO / "docs" / "natural" / "holdout" / "results.md")


class _NoModel:
    def __getattr__(self, name):
        pytest.fail(f"re-running the documented evaluation reached the model ({name}): the committed cache is incomplete")


@pytest.mark.parametrize("results", RESULTS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_documented_results_are_reproduced_from_the_committed_cache(results, data_root, tmp_path, monkeypatch):
    text = results.read_text(encoding="utf-8")
    command = re.search(r"```bash\n(auditflow eval [^\n]+)\n```", text)
    assert command, f"{results} does not show the auditflow eval command that made it"
    argv = shlex.split(command.group(1))[1:]
    monkeypatch.setattr(factory, "inner_model", lambda spec: _NoModel())
    monkeypatch.chdir(REPO)
    code = main([*argv, "--out", str(tmp_path), "--no-charts", "--data-root", str(data_root), "--jobs", "2"])
    # a documented run may list cases without an audit result (then eval exits 'incomplete'); the file says so
    assert code == (EXIT_INCOMPLETE if PROBLEMS_HEADING in text else 0)
    assert (tmp_path / "results.md").read_text(encoding="utf-8") == text
    # another report may show this one's results.json beside it (--with-results): it is reproduced too
    assert (tmp_path / "results.json").read_bytes() == (results.parent / "results.json").read_bytes()
    # and so is the workbook beside them: its bytes depend on the results alone, not on when it was made
    assert (tmp_path / "results.xlsx").read_bytes() == (results.parent / "results.xlsx").read_bytes()
