"""The rule registry: every DQC rule AuditFlow runs, and everything that lists rules, derives from it.

One module per rule, ``auditflow/rules/dqc_NNNN.py``, calls :func:`register` with a :class:`RuleSpec`
at import time. The spec says what the rule is (codes, title, DQC version and effective dates, message
templates), what it needs (:class:`Need`, resource files under the data root) and how to run it: one
``run(env, resources) -> RuleResult``. Adding a rule is that module, its ``docs/rules/DQC_US_NNNN.md``
and its test file ``tests/rules/test_dqc_NNNN.py``; ``tests/rules/test_registry.py`` fails when one of them
is missing (docs/architecture.md, "Where a rule lives").

What derives from here instead of a hand-written list (see docs/rules/README.md):

* ``auditflow check --rules`` (:func:`parse_rules`: ids, ranges, ``all``) and its default;
* the report's families and the workpaper's sheets (:func:`rule_ids`, in id order);
* the rules the auditors are offered as tools (:func:`agent_rules`, :func:`agent_tools`), with
  everything the checker tools say about them (:class:`auditflow.rules.agent.AgentTool`): tool
  names, schemas and observations the LLM recordings are keyed on;
* what the HTML reports draw and what they tell the filer to fix (:attr:`RuleSpec.drawing`,
  :meth:`RuleSpec.fix`);
* pytest markers (``dqc_NNNN`` for every rule), the eval tables' families (the agent rules);
* the form-lookup CSV each rule reads (:attr:`RuleSpec.form_lookup`).
"""
from __future__ import annotations

import enum
import functools
import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from auditflow.errors import AuditflowError
from auditflow.rules.agent import AgentTool

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment
    from auditflow.rules.finding import RuleResult
    from auditflow.rules.resources import Resources

# The two rule-form lookups of the data root: the 3-row extract the first three rules were built
# against (kept so their results do not move), and the 2026 table of the staged rule sources.
FORM_LOOKUP_FIRST_THREE = Path("dqc") / "common" / "rule_form_lookup_0015_0117_0126.csv"
FORM_LOOKUP_2026 = Path("dqc") / "rules" / "lib" / "rule-form-lookup.csv"
CONSTANTS_2025 = Path("dqc") / "common" / "dqcrt-us-2025-constants.json"
EFFECTIVE_DATES = Path("dqc") / "common" / "effective_dates_2025build.csv"
DQC_RULESET = "29.0.0RC2"  # the staged 2026 XULE sources' lib/version.xule


class Need(str, enum.Enum):
    """What a rule reads; ``auditflow check --list-rules`` shows it, and each rule's doc says it in words."""

    DEI = "dei facts"
    FACTS = "filer facts"
    FILER_CAL = "filer calculation linkbase"
    FILER_PRE = "filer presentation linkbase"
    FILER_DEF = "filer definition linkbase"
    TAXONOMY = "US-GAAP relationships (constants file)"
    ELEMENT_PROPS = "element properties (balance, type)"
    RESOURCES = "resource lists (data root)"


class Drawing(str, enum.Enum):
    """How the HTML reports draw a finding or check of the rule (auditflow.html.drawing)."""

    CALC_TREE = "calc"  # the total and its weighted calculation children
    MEMBER_TABLE = "members"  # the total and the member facts of one axis
    SIGN = "sign"  # the one fact and its list entry
    EVIDENCE = "evidence"  # the finding's evidence facts as a table


class Level(str, enum.Enum):
    """The level DQC gives a rule's messages (Arelle's DQC plugin logs them as ERROR or WARNING)."""

    ERROR = "error"
    WARNING = "warning"


DEFAULT_FIX_HINT = "See the DQC message: it names the facts and the relationship to correct."


@dataclass(frozen=True)
class RuleSpec:
    """One registered DQC rule."""

    id: str  # "0004"
    title: str
    messages: Mapping[str, str]  # full code "DQC.US.0004.16" -> message template (str.format fields)
    needs: frozenset[Need]
    run: Callable[["AuditEnvironment", "Resources"], "RuleResult"]
    version: str = DQC_RULESET
    resources: tuple[Path, ...] = ()  # files under the data root the rule reads (besides the form lookup)
    form_lookup: Path = FORM_LOOKUP_2026
    agent_tool: AgentTool | None = None
    needs_data_root: bool = True  # False: runs without one (the form is then not checked)
    # What the filer is told to do about a finding: str.format fields concept, reported, expected, axis.
    fix_hint: str = DEFAULT_FIX_HINT
    drawing: Drawing = Drawing.EVIDENCE
    # The categories a not-applicable record's reason starts with (docs/rules/DQC_US_NNNN.md says each).
    not_applicable: tuple[str, ...] = ()
    # The level of the rule's messages as DQC assigns it; ``levels`` overrides it per code.
    level: Level = Level.ERROR
    levels: Mapping[str, Level] = field(default_factory=dict)
    # Why the rule cannot run on our material (e.g. "needs the US-GAAP element schema (balance types)");
    # empty when it runs. A rule with a reason stays registered, is listed, and is reported as not run.
    cannot_run: str = ""
    doc: str = ""  # filled by register(): docs/rules/DQC_US_NNNN.md
    module: str = ""

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.messages)

    @property
    def element_ids(self) -> tuple[str, ...]:
        """The rule element ids (``16`` of ``DQC.US.0004.16``); the effective dates are keyed on them."""
        return tuple(c.rsplit(".", 1)[-1] for c in self.messages)

    @property
    def name(self) -> str:
        return f"DQC.US.{self.id}"

    def effective_dates(self, data_root: Path) -> dict[str, str]:
        """Code -> the date from which DQC applies it (the ruleset's effective-date table under the data
        root, keyed by rule element id); codes the table does not list are left out. 0015's codes carry
        the concept's element id and are not listed per concept."""
        table = _effective_dates(str(Path(data_root).resolve()))
        return {code: table[eid] for code, eid in zip(self.codes, self.element_ids) if eid in table}

    def fix(self, *, concept: str, reported: str, expected: str, axis: str) -> str:
        """The fix hint for one finding, filled in."""
        return self.fix_hint.format(concept=concept, reported=reported, expected=expected, axis=axis)

    @property
    def version_text(self) -> str:
        """The rule version as every output words it (``--list-rules``, the log; docs/check-log.md): a
        bare ruleset number becomes ``DQC 29.0.0RC2``; a version the rule words itself is kept."""
        version = self.version.strip()
        return f"DQC {version}" if version[:1].isdigit() else version

    def level_of(self, code: str) -> Level:
        """The level of one message code (``levels`` first, then the rule's ``level``)."""
        return self.levels.get(code, self.level)

    def template(self, code: str) -> str:
        """The message template of ``code``; 0015's codes carry the concept's element id, so a code
        not listed falls back to the rule's single template."""
        if code in self.messages:
            return self.messages[code]
        if len(self.messages) == 1:
            return next(iter(self.messages.values()))
        raise KeyError(f"{self.name} has no message template for {code}")


@functools.lru_cache(maxsize=4)
def _effective_dates(root: str) -> dict[str, str]:
    import csv

    path = Path(root) / EFFECTIVE_DATES
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            return {row["rule_element_id"].strip(): row["effective_date"].strip() for row in csv.DictReader(fh)}
    except (OSError, KeyError, csv.Error) as exc:
        raise AuditflowError(f"cannot read the DQC effective dates {path}: {exc}") from None


_REGISTRY: dict[str, RuleSpec] = {}
_RULE_MODULE = re.compile(r"^dqc_(\d{4})$")
_RANGE = re.compile(r"(?:DQC\.US\.)?(\d{1,4})\s*-\s*(?:DQC\.US\.)?(\d{1,4})", re.IGNORECASE)


def register(spec: RuleSpec) -> RuleSpec:
    """Add ``spec``; called once by each rule module at import. A second spec for an id is an error."""
    if spec.id in _REGISTRY and _REGISTRY[spec.id].module != spec.run.__module__:
        raise AuditflowError(f"rule {spec.id} registered twice ({_REGISTRY[spec.id].module}, {spec.run.__module__})")
    from dataclasses import replace

    spec = replace(spec, doc=f"docs/rules/DQC_US_{spec.id}.md", module=spec.run.__module__)
    _REGISTRY[spec.id] = spec
    return spec


@functools.lru_cache(maxsize=1)
def _discover() -> None:
    """Import every ``auditflow.rules.dqc_NNNN`` module (each registers itself)."""
    import auditflow.rules as pkg

    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if _RULE_MODULE.match(m.name)):
        importlib.import_module(f"auditflow.rules.{mod}")


def rules() -> dict[str, RuleSpec]:
    """Every registered rule, id -> spec, in id order."""
    _discover()
    return {k: _REGISTRY[k] for k in sorted(_REGISTRY)}


def rule_ids() -> tuple[str, ...]:
    return tuple(rules())


def get(rule: str) -> RuleSpec:
    """The spec of ``rule`` (``"4"``, ``"0004"``, ``"DQC.US.0004"``); unknown ids are an error."""
    key = normalise(rule)
    specs = rules()
    if key not in specs:
        raise AuditflowError(f"unknown rule {rule!r}; registered: {', '.join(specs)}")
    return specs[key]


def normalise(rule: str) -> str:
    """``"4"``, ``"0004"``, ``"DQC.US.0004"``, ``"dqc.us.0004.16"`` all name ``"0004"``."""
    text = rule.strip().upper().removeprefix("DQC.US.").removeprefix("DQC_US_").removeprefix("DQC_")
    head = text.split(".", 1)[0]
    if not head.isdigit():
        raise AuditflowError(f"not a DQC rule id: {rule!r} (use e.g. 0004, DQC.US.0004, 4-9 or all)")
    return head.zfill(4)


def parse_rules(text: str) -> tuple[str, ...]:
    """``--rules``: comma-separated ids, ranges (``4-9``, ``0043-0118``) or ``all``, in id order.

    A single id must be registered; a range keeps the registered ids inside it and must match one.
    """
    specs = rules()
    out: set[str] = set()
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part.lower() == "all":
            out.update(specs)
            continue
        if m := _RANGE.fullmatch(part):
            lo, hi = m.group(1).zfill(4), m.group(2).zfill(4)
            hit = [r for r in specs if lo <= r <= hi]
            if not hit:
                raise AuditflowError(f"no registered rule in {part!r}; registered: {', '.join(specs)}")
            out.update(hit)
            continue
        out.add(get(part).id)
    if not out:
        raise AuditflowError(f"no rules selected by {text!r}; registered: {', '.join(specs)}")
    return tuple(sorted(out))


def agent_rules() -> dict[str, str]:
    """Rule id -> agent tool name, for the rules the auditors are offered (id order).

    This is what ``agents/senior._RULE_TOOL`` and ``env/session._CHECKS_REQUIRED`` need.
    """
    return {r: s.agent_tool.name for r, s in rules().items() if s.agent_tool is not None}


def agent_tool(rule: str) -> AgentTool:
    """The agent tool of ``rule``; a rule the auditors are not offered is an error."""
    tool = get(rule).agent_tool
    if tool is None:
        raise AuditflowError(f"rule {rule} is not offered to the auditors; agent rules: {', '.join(agent_rules())}")
    return tool


def rule_of_tool(name: str) -> str | None:
    """The rule whose agent tool is called ``name`` (None for a tool that is not a checker)."""
    return next((r for r, t in agent_rules().items() if t == name), None)


def agent_tools() -> list[tuple[str, AgentTool]]:
    """(rule id, tool) for the agent rules in the auditors' tool-list order (recordings depend on it)."""
    return sorted(((r, s.agent_tool) for r, s in rules().items() if s.agent_tool is not None),
                  key=lambda rt: rt[1].order)


def fix_for(finding: Mapping[str, Any]) -> str:
    """What the filer is told to do about one finding (``Finding.to_json()``), from its rule's entry;
    a rule the registry does not know (an older report's) gets the general hint."""
    from auditflow.rules.finding import display_amount

    try:
        spec = get(str(finding.get("rule") or ""))
    except AuditflowError:
        return DEFAULT_FIX_HINT
    axis = next((str(e["axis"]) for e in finding.get("evidence") or () if isinstance(e, Mapping) and e.get("axis")),
                "the axis")
    return spec.fix(concept=str(finding.get("concept") or ""), reported=display_amount(finding.get("reported")),
                    expected=display_amount(finding.get("expected")), axis=axis)


def message_codes() -> dict[str, str]:
    """Every registered message code -> its rule id."""
    return {code: r for r, s in rules().items() for code in s.messages}


def describe() -> list[dict[str, Any]]:
    """One plain row per rule (id, title, codes, needs), for docs and ``--rules`` help."""
    return [{"rule": s.name, "title": s.title, "codes": list(s.codes), "needs": sorted(n.value for n in s.needs)}
            for s in rules().values()]
