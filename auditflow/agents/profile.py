"""Prompt profiles: everything the auditors read that is prose or small-model guidance, as a file.

A profile is versioned YAML (``auditflow/agents/profiles/<name>.yaml`` ships ``guided``, ``plain`` and
``natural``; a user may pass their own file). It also chooses the tool set the auditors get (``tools:``,
version 1 when absent): a tool's description, schema and observations reach the model too, so the
recorded profiles keep the tools they were recorded with (docs/prompt-profiles.md, "Tool sets"). The protocol modules hold no prompt text: they ask the profile. Every
string of a profile reaches the model verbatim, so changing one changes the cache key of exactly the
calls that carry it (docs/prompt-profiles.md). The profile's name and the sha256 of its bytes are
recorded in every :class:`~auditflow.agents.reports.AuditResult`.
"""
from __future__ import annotations

import copy
import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from auditflow.errors import AuditflowError

PROFILE_DIR = Path(__file__).with_name("profiles")
BUILTIN = ("guided", "plain", "natural")
ROLES = ("compliance", "forensic", "single")
VIEWS = ("trimmed", "full")
FEEDBACK_KEYS = ("queried_fact", "searched_fact", "disagree", "different_facts", "grounding", "grounding_what", "no_report")


class ProfileError(AuditflowError):
    """A prompt profile that cannot be read or lacks a field (names the file and the field)."""


@dataclass(frozen=True)
class SearchGuidance:
    """What a guided profile offers an auditor that must find the fact itself (a question in words).

    The harness never chooses the fact: it offers the calls a step could take next, one per candidate
    the last tool showed (a concept a search found, a fact find_facts listed, a period an error named),
    and the model picks the one the question names. A small model copies a call reliably but, left to
    compose one, gave a concept where a handle belongs and looped until its budget ran out.
    """

    opening_call: bool  # open with search_concepts on the question's own words
    max_options: int  # at most this many ready calls after one observation
    options_note: str  # what the model reads beside the options
    report_call: bool  # once nothing is required, next_call is the final report the checkers' results imply
    # after the Senior finds the auditors checked different facts: the audit re-opens, offering both facts
    recheck_on_conflict: bool = False
    # tool set 2's resolvers lead the search: resolve_period (and resolve_member) before the choices, which
    # come ordered and described by their answers (natural; auditflow/agents/natural_options.py)
    resolvers: bool = False


@dataclass(frozen=True)
class ArbitrationText:
    """What the Senior reads when its auditors still checked different facts after the last round.

    Whether the question means one fact or the other is a question of where to look, which the protocol
    leaves to a model (docs/protocol.md, "The Senior's choice"); what is true of the fact chosen stays
    with the checkers the auditor who examined it ran.
    """

    system: str  # the Senior's system prompt for the choice
    choose: str  # the instruction beside the question and the two facts


@dataclass(frozen=True)
class PromptProfile:
    """One prompt profile, read from YAML. ``sha256`` is the hash of the file's bytes."""

    name: str
    version: int
    sha256: str
    source: str  # "builtin:guided" or the file name a user gave (never an absolute path in artifacts)
    task: str  # the system prompt's head when the question hands over the fact as F1
    task_search: str  # ... when the auditors must find the fact the question names
    roles: Mapping[str, str]
    roles_search: Mapping[str, str]
    direct_system: str
    direct_task: str
    first_required: Mapping[str, str]  # role -> the required tool the opening suggests first
    opening_next_call: bool
    rule_hint: str | None  # "{rule}" template, or None: never show a case's rule family
    search_note: str
    view: str  # "trimmed" (model_view) or "full" observations
    next_call: bool  # observations carry next_call while tools are still required
    violations_found: bool  # the last observation summarises the checkers' results
    how_to_report: str | None
    report_tool_description: str
    rationale_max_length: int | None
    evidence_max_items: int | None
    feedback: Mapping[str, Any] = field(default_factory=dict)
    search: SearchGuidance | None = None  # ready calls while an auditor looks for the fact (optional section)
    arbitration: ArbitrationText | None = None  # the Senior chooses between disputed facts (optional section)
    tools: int = 1  # the tool-set version (auditflow.env.tools.TOOL_SETS); 1 when the file names none

    def system(self, role: str, *, search: bool = False) -> str:
        """The system prompt of ``role``: the shared task first (a local model's prompt cache keeps it)."""
        roles = self.roles_search if search else self.roles
        return f"{self.task_search if search else self.task}\n\n{roles[role]}"

    def report_schema(self, base: dict) -> dict:
        """``base`` (the report's JSON schema) with this profile's caps on the free-text fields."""
        schema = copy.deepcopy(base)
        props = schema["properties"]
        if self.evidence_max_items is not None:
            props["evidence"] = _insert_after(props["evidence"], "items", "maxItems", self.evidence_max_items)
        if self.rationale_max_length is not None:
            props["rationale"] = _insert_after(props["rationale"], "type", "maxLength", self.rationale_max_length)
        return schema

    def stamp(self) -> dict[str, str]:
        """What an artifact records of the profile; the tool-set version only when it is not 1, so every
        result recorded before tool sets existed reads as it did."""
        out = {"name": self.name, "sha256": self.sha256, "source": self.source}
        if self.tools != 1:
            out["tools"] = str(self.tools)
        return out


def _insert_after(obj: dict, after: str, key: str, value: Any) -> dict:
    """``obj`` with ``key`` placed right after ``after``: a text-only model reads the schema as rendered,
    in insertion order, so the capped schema must read exactly as it always has."""
    out: dict = {}
    for k, v in obj.items():
        out[k] = v
        if k == after:
            out[key] = value
    return out


def _need(data: Mapping, path: str, where: str, kind: type | tuple = str, *, optional: bool = False) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            raise ProfileError(f"{where}: missing field {path!r} (see auditflow/agents/profiles/guided.yaml)")
        node = node[part]
    if node is None and optional:
        return None
    if not isinstance(node, kind):
        raise ProfileError(f"{where}: field {path!r} must be {getattr(kind, '__name__', kind)}, got {type(node).__name__}")
    return node


def parse_profile(raw: bytes, source: str) -> PromptProfile:
    """Build a profile from a YAML file's bytes; every problem names ``source`` and the field."""
    data = _read_yaml(raw, source)
    if not isinstance(data, Mapping):
        raise ProfileError(f"{source}: a prompt profile is a YAML mapping")
    roles = _need(data, "system.roles", source, dict)
    roles_search = _need(data, "system.roles_search", source, dict)
    for what, table in (("system.roles", roles), ("system.roles_search", roles_search)):
        if missing := [r for r in ROLES if not isinstance(table.get(r), str)]:
            raise ProfileError(f"{source}: {what} needs a text for {', '.join(missing)}")
    view = _need(data, "observations.view", source)
    if view not in VIEWS:
        raise ProfileError(f"{source}: observations.view must be one of {', '.join(VIEWS)}, got {view!r}")
    feedback = _need(data, "feedback", source, dict)
    if missing := [k for k in FEEDBACK_KEYS if k not in feedback]:
        raise ProfileError(f"{source}: feedback needs {', '.join(missing)}")
    search = _search_guidance(data, source)
    if search is not None and search.recheck_on_conflict and not isinstance(feedback.get("facts_in_dispute"), str):
        raise ProfileError(f"{source}: search.recheck_on_conflict needs feedback.facts_in_dispute (the Senior's "
                           "text when it re-opens the search on two facts)")
    return PromptProfile(
        name=_need(data, "profile", source), version=_need(data, "version", source, int),
        sha256=hashlib.sha256(raw).hexdigest(), source=source,
        task=_need(data, "system.task", source), task_search=_need(data, "system.task_search", source),
        roles=dict(roles), roles_search=dict(roles_search), direct_system=_need(data, "system.direct", source),
        direct_task=_need(data, "opening.direct_task", source),
        first_required=dict(_need(data, "opening.first_required", source, dict)),
        opening_next_call=_need(data, "opening.next_call", source, bool),
        rule_hint=_need(data, "opening.rule_hint", source, optional=True),
        search_note=_need(data, "opening.search_note", source),
        view=view, next_call=_need(data, "observations.next_call", source, bool),
        violations_found=_need(data, "observations.violations_found", source, bool),
        how_to_report=_need(data, "observations.how_to_report", source, optional=True),
        report_tool_description=_need(data, "report.tool_description", source),
        rationale_max_length=_need(data, "report.rationale_max_length", source, int, optional=True),
        evidence_max_items=_need(data, "report.evidence_max_items", source, int, optional=True),
        feedback=dict(feedback),
        search=search,
        arbitration=_arbitration(data, source),
        tools=_tool_set_version(data, source),
    )


def _tool_set_version(data: Mapping, source: str) -> int:
    """The optional ``tools:`` key: a tool-set version there is (1 when absent)."""
    from auditflow.env.tools import TOOL_SETS  # the registry, only to name the versions there are

    value = data.get("tools", 1)
    if not isinstance(value, int) or isinstance(value, bool) or value not in TOOL_SETS:
        raise ProfileError(f"{source}: tools must be a tool-set version, one of {', '.join(map(str, TOOL_SETS))}; "
                           f"got {value!r}")
    return value


def _arbitration(data: Mapping, source: str) -> ArbitrationText | None:
    """The optional ``arbitration:`` section (without it a standing dispute is fused as it stands)."""
    if data.get("arbitration") is None:
        return None
    return ArbitrationText(system=_need(data, "arbitration.system", source),
                           choose=_need(data, "arbitration.choose", source))


def _search_guidance(data: Mapping, source: str) -> SearchGuidance | None:
    """The optional ``search:`` section (absent in ``plain``: a capable model plans its own search)."""
    if data.get("search") is None:
        return None
    max_options = _need(data, "search.max_options", source, int)
    if max_options < 1:
        raise ProfileError(f"{source}: search.max_options must be at least 1, got {max_options}")
    return SearchGuidance(opening_call=_need(data, "search.opening_call", source, bool), max_options=max_options,
                          options_note=_need(data, "search.options_note", source),
                          report_call=_need(data, "search.report_call", source, bool),
                          recheck_on_conflict=_optional_bool(data, "search.recheck_on_conflict", source),
                          resolvers=_optional_bool(data, "search.resolvers", source))


def _optional_bool(data: Mapping, dotted: str, source: str) -> bool:
    """A yes/no key a profile may leave out (false): profiles written before it existed still load."""
    section, _, key = dotted.partition(".")
    value = (data.get(section) or {}).get(key, False)
    if not isinstance(value, bool):
        raise ProfileError(f"{source}: {dotted} must be true or false, got {value!r}")
    return value


MAX_PROFILE_BYTES = 256 * 1024


def _read_yaml(raw: bytes, source: str) -> Any:
    """Plain YAML without aliases (a profile needs none, and an alias bomb must not expand)."""
    import yaml

    if len(raw) > MAX_PROFILE_BYTES:
        raise ProfileError(f"{source}: a prompt profile is at most {MAX_PROFILE_BYTES // 1024} KiB, this one {len(raw)} bytes")
    try:
        text = raw.decode("utf-8")
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise ProfileError(f"{source}:{mark.line + 1}: YAML aliases are not allowed in a prompt profile")
        return yaml.safe_load(text)
    except UnicodeDecodeError as exc:
        raise ProfileError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        raise ProfileError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None


@functools.lru_cache(maxsize=None)
def builtin_profile(name: str) -> PromptProfile:
    if name not in BUILTIN:
        raise ProfileError(f"no built-in prompt profile {name!r}; built in: {', '.join(BUILTIN)}, or give a YAML file")
    return parse_profile((PROFILE_DIR / f"{name}.yaml").read_bytes(), f"builtin:{name}")


def load_profile(spec: str | Path | None, *, model: str | None = None, question: bool = False) -> PromptProfile:
    """``spec``: a built-in name, a path to a YAML file, or None for the model's default profile
    (``question``: the query is a question in words, see :func:`default_profile_name`)."""
    if spec is None or str(spec) == "":
        return builtin_profile(default_profile_name(model, question=question))
    text = str(spec)
    if text in BUILTIN:
        return builtin_profile(text)
    path = Path(text).expanduser()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ProfileError(f"prompt profile {text}: cannot read it ({exc.strerror or exc}); give a YAML file or one of "
                           f"{', '.join(BUILTIN)}") from None
    return parse_profile(raw, path.name)


def default_profile_name(model: str | None, *, question: bool = False) -> str:
    """Small local models (and the policy, which reads the same observations) get ``guided``; hosted
    models with a tool-calling API get ``plain``. The policy asked a question in words (``question``, as
    ``auditflow audit --question`` asks) gets ``natural``: with tool set 2 it reads the question by
    meaning (auditflow.agents.policy_reading), while a model keeps ``guided`` so an audit of a recorded
    case's question replays its calls. Case runs name their profile (or take ``guided``) as before."""
    if model is None or model.strip() == "policy":
        return "natural" if question else "guided"
    provider = model.split(":", 1)[0]
    return "guided" if provider in ("local", "hf") or _is_bundled_model_served(model) else "plain"


def _is_bundled_model_served(model: str) -> bool:
    """Whether ``model`` is one of the bundled local models behind an OpenAI-compatible server
    (``openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-coder-1.5b``, as ``auditflow model serve``
    prints it): the profile follows the model, not the transport, so a served model reads the prompts
    it reads in-process and its results can be set beside the in-process ones."""
    from auditflow.llm.install import MODELS
    from auditflow.llm.specs import ModelSpec, ModelSpecError

    try:
        spec = ModelSpec.parse(model)
    except ModelSpecError:  # not a spec at all: the caller's own check names the error
        return False
    return spec.provider == "openai-compatible" and spec.model.lower() in {f"qwen2.5-coder-{size}" for size in MODELS}


GUIDED = "guided"
