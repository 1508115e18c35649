"""One auditor's run over one case: the queried fact, its role's tools, gating, the transcript.

The session is the environment as an agent meets it (docs/local-llm.md, "presenting the
environment to a small model"):

* the queried fact is resolved up front and handed over as ``F1``; every fact a tool shows gets the
  next handle, mapped back to the XBRL fact here, never shown raw;
* a role sees only its tools (A1 ``compliance``: static + checks; A2 ``forensic`` and the
  single-agent baseline: all);
* every observation carries ``still_required``; :meth:`AuditSession.final` refuses a report until
  the role's required tools have run successfully, and returns the missing ones;
* after two identical failing calls the third is refused as ``repeated_failure`` instead of run,
  because a small model would otherwise loop on it.

Same calls, same transcript, byte for byte: nothing time- or order-dependent enters it.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from auditflow.env.dynamic_tools import listed_fact
from auditflow.env.facts import fact_view
from auditflow.env.names import label_of, names, resolve_concept, resolve_dimensions, resolve_period
from auditflow.env.query import AuditQuery
from auditflow.env.tool_base import ToolContext, ToolError, error_observation, is_error
from auditflow.env.tools import CHECKS, DYNAMIC, STATIC, TOOLS, ToolSet, run_tool, tool_set
from auditflow.graphs.environment import AuditEnvironment
from auditflow.xbrl.model import Fact

ROLE_TOOLS: dict[str, tuple[str, ...]] = {
    "compliance": STATIC + CHECKS,
    "forensic": STATIC + DYNAMIC + CHECKS,
    "single": STATIC + DYNAMIC + CHECKS,
}
_CHECKS_REQUIRED = CHECKS  # every agent rule's checker, in the tool-list order (from the rule registry)
REQUIRED: dict[str, tuple[str, ...]] = {
    "compliance": _CHECKS_REQUIRED,
    "forensic": _CHECKS_REQUIRED + ("get_fact_history",),
    "single": _CHECKS_REQUIRED + ("get_fact_history",),
}
FINAL = "final_report"
MAX_IDENTICAL_FAILURES = 2


def tool_schemas(role: str) -> list[dict]:
    """The role's tools in OpenAI function format (``{"type": "function", "function": {...}}``)."""
    return [TOOLS[name].openai_schema() for name in _role_tools(role)]


def _role_tools(role: str, tools: ToolSet | None = None) -> tuple[str, ...]:
    """The role's tool names: version 1's (``ROLE_TOOLS``), or those of ``tools`` by the same kinds."""
    if role not in ROLE_TOOLS:
        raise ValueError(f"unknown auditor role {role!r}; choose from {', '.join(ROLE_TOOLS)}")
    if tools is None or tools.version == 1:
        return ROLE_TOOLS[role]
    kinds = ("static", "check") if role == "compliance" else ("static", "dynamic", "check")
    return tuple(name for kind in kinds for name in tools.names(kind))


def _canonical(value: Any) -> Any:
    """A JSON-only copy of what a caller passed, so the transcript serialises the same way every time."""
    return json.loads(json.dumps(value, sort_keys=True, default=repr))


class AuditSession:
    """``AuditSession(env, query, role, data_root=...)``; then :meth:`call` tools and :meth:`final`.

    ``required=()`` disables gating (the no-gating ablation); ``None`` takes the role's default.
    ``tools``: the tool-set version (docs/prompt-profiles.md, "Tool sets"; the prompt profile chooses it).
    """

    def __init__(self, env: AuditEnvironment, query: AuditQuery, role: str, *, data_root: Path | None,
                 required: tuple[str, ...] | list[str] | None = None, shuffle: int | None = None,
                 tools: int = 1) -> None:
        self.role = role
        self.tool_set = tool_set(tools)
        self.allowed = _role_tools(role, self.tool_set)
        self.required = REQUIRED[role] if required is None else tuple(required)
        if unknown := [t for t in self.required if t not in self.allowed]:
            raise ValueError(f"required tool(s) {', '.join(unknown)} are not tools of the {role} role")
        self.query = query
        self.ctx = ToolContext(env, Path(data_root) if data_root is not None else None, shuffle=shuffle)
        self.transcript: list[dict[str, Any]] = []
        self.counters = {"tool_calls": 0, "tool_errors": 0, "refused_finals": 0, "accepted_finals": 0}
        self.timings: list[float] = []  # seconds per call; kept out of the transcript
        self.report: dict | None = None  # the last accepted final report
        self._ran: set[str] = set()
        self._failures: Counter[str] = Counter()
        self.focus_note = self._resolve_focus()

    # -- the queried fact --------------------------------------------------------------------------
    def _resolve_focus(self) -> str | None:
        """Find the queried fact and make it F1, or say why there is none.

        A structured query names the fact (first of several exact duplicates). A FinMR question is
        resolved as its data set means it: the one non-dimensional fact of that concept and period;
        with none or several the auditors must find it. A plain-words question is never resolved here.
        """
        q = self.query
        if q.form == "text":
            return "the question names the fact in words"
        try:
            concept = resolve_concept(self.ctx, q.concept)
            period = resolve_period(self.ctx, q.period, concept=concept)
            dims = resolve_dimensions(self.ctx, dict(q.dimensions))
        except ToolError as exc:
            return f"the queried fact is not in the filing: {exc.message}"
        found = self.ctx.env.facts(concept, period=period, dimensions=dims)
        if q.form == "finmr":
            distinct = {(f.value, f.decimals) for f in found}
            if len(distinct) != 1:
                return f"{len(found)} non-dimensional facts of {q.concept} for {q.period}: find the one meant"
        if not found:
            return f"the filing has no fact of {q.concept} for {q.period} with these dimensions"
        self.ctx.focus = found[0]
        self.ctx.handles.handle(found[0])
        return None

    @property
    def focus(self) -> Fact | None:
        return self.ctx.focus

    @property
    def searching(self) -> bool:
        """Whether this auditor must find the fact itself (a question the harness did not resolve)."""
        return self.ctx.focus is None and self.query.question is not None

    def opening(self) -> dict[str, Any]:
        """The first observation: the queried fact as F1 (or the question, or why there is none), the
        tools, what is required."""
        obs: dict[str, Any] = {"role": self.role, "tools": list(self.allowed)}
        if self.ctx.focus is not None:
            obs["queried_fact"] = fact_view(self.ctx, self.ctx.focus)
        else:
            obs["queried_fact"] = None
            if self.query.question is not None:
                obs["question"] = self.query.question
            else:
                obs["note"] = self.focus_note
        obs["still_required"] = self.missing()
        return _canonical(obs)

    def target(self) -> dict[str, Any] | None:
        """The fact this auditor is auditing: F1 when the question handed it over, else the fact of its
        latest successful checker call (its own choice), as ``{"fact", "concept", "value", ...}``."""
        key = self.ctx.focus.key if self.ctx.focus is not None else self._last_checked_key()
        return fact_view(self.ctx, names(self.ctx.env).facts_by_key[key]) if key is not None else None

    def checked_fact(self) -> dict[str, Any] | None:
        """The fact this auditor's checkers examined last, as ``{"key", "concept", "period", "dimensions",
        "value"}`` (no handle: handles are per session), or None when no checker ran on a fact."""
        return self._keyed_name(self._last_checked_key())

    def worked_fact(self) -> dict[str, Any] | None:
        """The fact this auditor's report is about when no checker could examine one (a configuration
        without checkers): the fact the question handed over, else the one it last named by handle; as
        ``checked_fact`` gives it, or None when it never chose a fact. Grading needs it: without it every
        report of such a configuration would be about no fact, a miss by construction."""
        key = self.ctx.focus.key if self.ctx.focus is not None else None
        if key is None:
            handle = self.chosen_handle()
            key = self.ctx.handles.key(handle) if handle is not None else None
        return self._keyed_name(key)

    def _keyed_name(self, key: str | None) -> dict[str, Any] | None:
        """``fact_name`` with the fact's key (to compare facts across sessions), or None for no key."""
        return {"key": key, **self.fact_name(key)} if key is not None else None

    def fact_name(self, key: str) -> dict[str, Any]:
        """A fact as a reader names it: concept, period, dimensions, value (never a per-session handle)."""
        view = fact_view(self.ctx, names(self.ctx.env).facts_by_key[key])
        return {k: view.get(k) for k in ("concept", "period", "dimensions", "value")}

    def chosen_handle(self) -> str | None:
        """The handle of the fact this auditor last worked on: the fact its latest successful call
        named by handle, or the one a checker resolved from concept and period. None before it chose."""
        for step in reversed(self.transcript):
            obs = step.get("observation") or {}
            if step.get("tool") == FINAL or "error" in obs:
                continue
            named = (step.get("arguments") or {}).get("fact")
            if isinstance(named, str) and self.ctx.handles.key(named) is not None:
                return named
            if step.get("tool") in CHECKS and isinstance(obs.get("fact"), str):
                return obs["fact"]
        return None

    def _last_checked_key(self) -> str | None:
        """The fact key of this auditor's latest successful checker call, or None."""
        for step in reversed(self.transcript):
            obs = step.get("observation") or {}
            if step.get("tool") in CHECKS and "error" not in obs and isinstance(obs.get("fact"), str):
                key = self.ctx.handles.key(obs["fact"])
                if key is not None:
                    return key
        return None

    def listing(self, key: str) -> dict[str, Any]:
        """The fact ``key`` as find_facts lists it, plus its concept and that concept's label, under a
        handle of this session (one is made if this auditor never saw the fact: the Senior may put a
        colleague's fact before it)."""
        index = names(self.ctx.env)
        fact = index.facts_by_key[key]
        return _canonical({**listed_fact(self.ctx, fact), "concept": index.qstr(fact.concept),
                           "label": label_of(self.ctx, fact.concept)})

    def reopen(self) -> list[str]:
        """Require every required tool again, and return them: the Senior found that the auditors
        examined different facts, so whichever fact this auditor now chooses is audited in full."""
        self._ran.clear()
        return self.missing()

    # -- calls ---------------------------------------------------------------------------------------
    def missing(self) -> list[str]:
        """Required tools that have not yet run successfully, in the role's order."""
        return [t for t in self.required if t not in self._ran]

    def call(self, tool: str, arguments: dict | None = None) -> dict[str, Any]:
        """Run one tool for the agent; the observation always carries ``still_required``."""
        t0 = time.perf_counter()
        args = _canonical(arguments if arguments is not None else {})
        signature = json.dumps([tool, args], sort_keys=True)
        if self._failures[signature] >= MAX_IDENTICAL_FAILURES:
            obs = error_observation("repeated_failure", f"{tool} already failed {MAX_IDENTICAL_FAILURES} times with these "
                                    "arguments: change the arguments or use another tool", self.missing())
        elif tool not in self.allowed:
            what = f"{tool} is not a tool of the {self.role} auditor" if tool in self.tool_set.by_name else f"no tool named {tool!r}"
            obs = error_observation("tool_not_allowed", f"{what}; allowed: {', '.join(self.allowed)}", list(self.allowed))
        else:
            obs = run_tool(self.ctx, tool, args, tools=self.tool_set)
        if is_error(obs):
            self._failures[signature] += 1
            self.counters["tool_errors"] += 1
        elif tool in self.allowed:
            self._ran.add(tool)
        self.counters["tool_calls"] += 1
        obs["still_required"] = self.missing()
        self._record(tool, args, obs)
        self.timings.append(time.perf_counter() - t0)
        return _canonical(obs)

    def final(self, report: dict) -> dict[str, Any]:
        """Accept the final report only once every required tool has run; else say what is missing."""
        missing = self.missing()
        if not isinstance(report, dict):
            obs = error_observation("bad_arguments", "the final report must be a JSON object")
        elif missing:
            self.counters["refused_finals"] += 1
            obs = {"refused": True, "missing_tools": missing,
                   "message": f"final report refused: run {', '.join(missing)} first"}
        else:
            self.counters["accepted_finals"] += 1
            self.report = _canonical(report)
            obs = {"accepted": True}
        obs["still_required"] = missing
        self._record(FINAL, _canonical(report), obs)
        return _canonical(obs)

    def _record(self, tool: str, args: Any, obs: dict) -> None:
        self.transcript.append({"step": len(self.transcript) + 1, "tool": tool, "arguments": args,
                                "observation": _canonical(obs)})

    # -- for harnesses ------------------------------------------------------------------------------
    def fact_key(self, handle: str) -> str | None:
        """The XBRL fact key behind a handle (what reports and findings use), or None."""
        return self.ctx.handles.key(handle)

    def handles(self) -> dict[str, str]:
        """Every handle shown so far -> its fact key."""
        return dict(self.ctx.handles.items())

    def tool_schemas(self) -> list[dict]:
        """The schemas of the tools this session allows (a configuration may have removed some)."""
        return [self.tool_set.by_name[name].openai_schema() for name in self.allowed]
