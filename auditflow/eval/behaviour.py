"""How the auditors went about their work: which kinds of tool they called, and in what order.

The paper reads its auditors' transcripts for two things: the Compliance auditor keeps to the
static (taxonomy) tools while the Forensic auditor mixes static and dynamic (filing) tools; and the
Forensic auditor gathers evidence first and runs the checks last. This module measures both, per
configuration and role, from the transcripts of a run (docs/baselines.md, "Behaviour"):

* the share of tool calls to static, dynamic and checker tools;
* the share of transcripts that go evidence first, checks last: the first call reads the taxonomy or
  the filing, and once the first checker has run no static or dynamic call follows in that round;
* the mean number of calls before the first checker (over the transcripts that ran one).

Only the first round counts for the order: a later round follows the Senior's feedback, which names
the tools to re-run, so its order is the feedback's, not the auditor's. The shares count every round.
A tool call is counted whether or not it succeeded (a refused call is still a choice of tool).
``auditflow eval --behaviour`` adds the table to results.md and draws ``behaviour.png``; without the
option nothing here runs and results.md is unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from auditflow.env.tools import TOOL_SETS

STATIC = frozenset(n for ts in TOOL_SETS.values() for n in ts.names("static"))
DYNAMIC = frozenset(n for ts in TOOL_SETS.values() for n in ts.names("dynamic"))
CHECK = frozenset(n for ts in TOOL_SETS.values() for n in ts.names("check"))
CHART = "behaviour.png"


def kind_of(tool: str) -> str | None:
    """"static", "dynamic", "check", or None (final_report, a tool that does not exist)."""
    return "static" if tool in STATIC else "dynamic" if tool in DYNAMIC else "check" if tool in CHECK else None


@dataclass(frozen=True)
class TranscriptBehaviour:
    """One auditor's transcript in one case, reduced to the kinds of its calls."""

    role: str
    kinds: tuple[str, ...]  # every round's calls, in order
    first_round: tuple[str, ...]

    @property
    def checked(self) -> bool:
        return "check" in self.first_round

    @property
    def calls_before_check(self) -> int | None:
        return self.first_round.index("check") if self.checked else None

    @property
    def evidence_first_checks_last(self) -> bool:
        """Evidence (static or dynamic) first; after the first checker, only checkers (first round)."""
        calls = self.first_round
        if not calls or calls[0] == "check" or "check" in calls and any(
                k != "check" for k in calls[calls.index("check"):]):
            return False
        return "check" in calls


def transcript_behaviour(transcripts: Iterable) -> tuple[TranscriptBehaviour, ...]:
    """The behaviour of each transcript of an AuditResult (``result.transcripts``)."""
    out = []
    for t in transcripts:
        rounds = [[kind_of(s.tool_call.tool) for s in r if s.tool_call is not None and s.kind in ("tool_call", "invalid_output")]
                  for r in t.rounds]
        rounds = [[k for k in r if k is not None] for r in rounds]
        out.append(TranscriptBehaviour(t.role, tuple(k for r in rounds for k in r), tuple(rounds[0]) if rounds else ()))
    return tuple(out)


@dataclass(frozen=True)
class BehaviourRow:
    """One configuration's one role over every case it ran."""

    config: str
    role: str
    transcripts: int
    calls: int
    static: int
    dynamic: int
    check: int
    ordered: int  # transcripts evidence first, checks last
    checked: int  # transcripts whose first round ran a checker
    before_check: int  # calls before the first checker, summed over those

    def share(self, n: int) -> float | None:
        return n / self.calls if self.calls else None

    @property
    def ordered_share(self) -> float | None:
        return self.ordered / self.transcripts if self.transcripts else None

    @property
    def mean_before_check(self) -> float | None:
        return self.before_check / self.checked if self.checked else None

    def to_json(self) -> dict:
        return {"config": self.config, "role": self.role, "transcripts": self.transcripts, "calls": self.calls,
                "static": self.static, "dynamic": self.dynamic, "check": self.check, "ordered": self.ordered,
                "checked": self.checked, "calls_before_first_check": self.before_check}


def behaviour_rows(per_config: Mapping[str, Sequence[TranscriptBehaviour]], order: Sequence[str]) -> list[BehaviourRow]:
    """Rows in configuration order, roles in the order first met."""
    rows = []
    for config in order:
        found = per_config.get(config, ())
        for role in dict.fromkeys(t.role for t in found):
            ts = [t for t in found if t.role == role]
            kinds = [k for t in ts for k in t.kinds]
            checked = [t for t in ts if t.checked]
            rows.append(BehaviourRow(config, role, len(ts), len(kinds), kinds.count("static"), kinds.count("dynamic"),
                                     kinds.count("check"), sum(t.evidence_first_checks_last for t in ts), len(checked),
                                     sum(t.calls_before_check or 0 for t in checked)))
    return rows


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def behaviour_markdown(rows: Sequence[BehaviourRow]) -> str:
    """The section results.md gets with ``--behaviour``."""
    lines = ["## Auditors' behaviour", "",
             "Per configuration and role, from the transcripts: the share of tool calls to static (taxonomy), "
             "dynamic (filing) and checker tools (every round); the share of transcripts that go evidence first, "
             "checks last, and the mean number of calls before the first checker (first round; "
             "docs/baselines.md, \"Behaviour\").", "",
             "| configuration | role | transcripts | tool calls | static | dynamic | checks | evidence first, checks last "
             "| calls before the first checker |",
             "|:--|:--|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        mean = "–" if r.mean_before_check is None else f"{r.mean_before_check:.2f} ({r.checked})"
        lines.append(f"| {r.config} | {r.role} | {r.transcripts} | {r.calls} | {_pct(r.share(r.static))} | "
                     f"{_pct(r.share(r.dynamic))} | {_pct(r.share(r.check))} | {_pct(r.ordered_share)} ({r.ordered}) | {mean} |")
    return "\n".join(lines) + "\n"


def behaviour_chart(rows: Sequence[BehaviourRow], path: Path) -> Path:
    """Stacked bars: the static / dynamic / checker shares of each (configuration, role) with calls."""
    from auditflow.eval.charts import _figure, _save

    shown = [r for r in rows if r.calls]
    fig = _figure()
    ax = fig.add_subplot()
    names = [f"{r.config}\n{r.role}" for r in shown]
    bottom = [0.0] * len(shown)
    for kind, colour in (("static", "#1f77b4"), ("dynamic", "#ff7f0e"), ("check", "#2ca02c")):
        values = [100 * getattr(r, kind) / r.calls for r in shown]
        ax.bar(range(len(shown)), values, bottom=bottom, color=colour, label=kind)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels(names, fontsize=7, rotation=45, ha="right")
    ax.set_ylabel("share of tool calls (%)")
    ax.set_title("Tool calls by kind, per configuration and role")
    ax.legend(fontsize=8)
    _save(fig, path)
    return path


ROLE_ORDER = ("compliance", "forensic", "single", "direct")


class BehaviourCollector:
    """``run_one`` for :func:`auditflow.eval.runner.run_eval` that keeps each case's transcript behaviour,
    keyed by the row's settings object (one per row); ``run``: the runner it wraps (run_case by default)."""

    def __init__(self, run=None) -> None:
        import threading

        self.run = run
        self.found: dict[int, list[TranscriptBehaviour]] = {}
        self._lock = threading.Lock()

    def __call__(self, case, settings):
        if self.run is None:
            from auditflow.cases.runner import run_case

            self.run = run_case
        outcome = self.run(case, settings)
        if outcome.result is not None:
            with self._lock:
                self.found.setdefault(id(settings), []).extend(transcript_behaviour(outcome.result.transcripts))
        return outcome

    def rows(self, settings: Mapping[str, object], order: Sequence[str]) -> list[BehaviourRow]:
        """Rows per configuration (``settings``: configuration -> the settings object its cases ran with),
        roles in a fixed order: the counts do not depend on which thread finished first."""
        per_config = {}
        for name in order:
            ts = self.found.get(id(settings[name]), []) if name in settings else []
            rank = {r: i for i, r in enumerate(ROLE_ORDER)}
            per_config[name] = sorted(ts, key=lambda t: (rank.get(t.role, len(rank)), t.role))
        return behaviour_rows(per_config, order)
