"""Static tools: what the taxonomy says about a concept, independent of the reported numbers.

They read the taxonomy graph together with the filer's extension (its schema and linkbases are the
part of the taxonomy the filer wrote, and the calculation checks use the filer's trees). Without a
taxonomy graph they still answer from the filing alone and say so with ``"source": "filing"``, so
an agent never mistakes "the filer did not say" for "the taxonomy says nothing".
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from auditflow.env.envcache import memo
from auditflow.env.phrases import parse_period_phrase
from auditflow.env.names import label_of, names, resolve_concept, resolve_role, role_short, role_title
from auditflow.env.scope import rule_scopes, statement_has_table
from auditflow.env.tool_base import CONCEPT_ARG, ROLE_ARG, Tool, ToolContext, ToolError, object_schema
from auditflow.rules.finding import dec_str
from auditflow.rules.registry import agent_rules
from auditflow.xbrl.model import Concept
from auditflow.xbrl.qname import QName

MAX_TAXONOMY_ROLES = 5
MAX_CUBES = 10
MAX_LINE_ITEMS = 30
DOMAIN_TYPE = "domainItemType"


def source(ctx: ToolContext) -> str:
    return "taxonomy" if ctx.env.taxonomy is not None else "filing"


def _reported(ctx: ToolContext, q: QName) -> bool:
    return bool(ctx.env.index.by_concept.get(q))


# -- search_concepts -----------------------------------------------------------------------------
def search_concepts(ctx: ToolContext, args: dict) -> dict:
    text, limit = " ".join(args["text"].split()), args.get("limit", 10)
    if not text:
        raise ToolError("bad_arguments", "text must contain a word of the concept's name or label")
    n = names(ctx.env)
    needle, squashed = text.lower(), text.lower().replace(" ", "")
    words = _words(text)
    scored = []
    for q, local, label, others in _search_table(ctx):
        rank = (0 if local == squashed or needle == label or needle in others else 1 if local.startswith(squashed)
                else 2 if squashed in local else 3 if needle in label or any(needle in o for o in others) else None)
        if rank is not None:
            scored.append((rank, 0.0, 0.0, len(local), n.qstr(q), q))
        elif words and (fit := _overlap(words, (label, *others)))[0] >= MIN_WORD_SHARE:
            # most of the question's words first, then the label that is most nearly just those words
            scored.append((4, -fit[0], -fit[1], len(local), n.qstr(q), q))
    hits = [q for *_, q in sorted(scored)]
    if ctx.env.taxonomy is not None:
        hits += [q for q in ctx.env.taxonomy.search(text, limit=limit) if q not in hits]
    # one entry per shown name: the filing's us-gaap/2023 concept and the taxonomy's 2024 one read the same
    unique = {n.qstr(q): q for q in reversed(hits)}
    hits = sorted(dict.fromkeys(unique[n.qstr(q)] for q in hits), key=lambda q: not _reported(ctx, q))[:limit]
    out = [_hit(ctx, q, needle) for q in ctx.order(hits, "search_concepts", text, limit)]
    obs: dict[str, Any] = {"source": source(ctx), "text": text, "concepts": out, "count": len(out)}
    if not out:
        raise ToolError("unknown_concept", f"no concept's name or label matches {text!r}: try fewer words (the label "
                        "alone, without the period) or a synonym")
    return obs


STOP_WORDS = frozenset({"the", "of", "for", "and", "a", "an", "in", "on", "to", "by", "at", "as", "from", "total",
                        "ended", "ending", "period", "months", "month", "year", "fiscal", "quarter"})
MIN_WORD_SHARE = 0.5  # a label must hold at least half of the question's words to be shown


def _words(text: str) -> frozenset[str]:
    """The words of a search that can name a concept: the period phrase and filler words left out, so a
    question typed whole ("Total net sales, year ended September 30, 2023") still finds its label."""
    parsed = parse_period_phrase(text)
    rest = parsed[1] if parsed else text
    return frozenset(w for w in re.findall(r"[a-z0-9]+", rest.lower()) if w not in STOP_WORDS and not w.isdigit())


def _overlap(words: frozenset[str], labels) -> tuple[float, float]:
    """(share of ``words`` a label holds, share of that label's words they are), the best label's."""
    best = (0.0, 0.0)
    for label in labels:
        have = set(re.findall(r"[a-z0-9]+", label)) - STOP_WORDS
        if have:
            common = len(words & have)
            best = max(best, (common / len(words), common / len(have)))
    return best


def _hit(ctx: ToolContext, q: QName, needle: str) -> dict[str, Any]:
    """A search hit: the concept, its standard label, and the filer's own label the words matched when
    that is another one (a terse or total label as the statement prints it)."""
    label = label_of(ctx, q)
    hit: dict[str, Any] = {"concept": names(ctx.env).qstr(q), "label": label, "reported": _reported(ctx, q)}
    if not (label or "").lower().count(needle):
        labels = sorted(set(names(ctx.env).labels.get(q, {}).values()))
        own = [t for t in labels if needle in t.lower()]
        words = _words(needle)
        if not own and words:  # the filer's label holding most of the words (then the shortest such label)
            fits = sorted((tuple(-x for x in _overlap(words, (t.lower(),))), t) for t in labels)
            own = [fits[0][1]] if fits and fits[0][0][0] < 0 and fits[0][1] != label else []
        if own:
            hit["matched_label"] = own[0]
    return hit


def _search_table(ctx: ToolContext) -> list[tuple[QName, str, str, tuple[str, ...]]]:
    """(concept, lower-case local name, lower-case standard label, the filer's other labels lower-case)
    of every name the filing knows, built once."""
    def build():
        n = names(ctx.env)
        return [(q, q.local.lower(), (label_of(ctx, q) or "").lower(),
                 tuple(sorted({t.lower() for t in n.labels.get(q, {}).values()})))
                for q in sorted(n.known)]

    return memo(ctx.env, "search_table", build)


# -- get_concept ---------------------------------------------------------------------------------
def get_concept(ctx: ToolContext, args: dict) -> dict:
    q = resolve_concept(ctx, args["concept"])
    env, n = ctx.env, names(ctx.env)
    c = env.concept(q) or Concept(q, source="locator")
    labels = {r.rsplit("/", 1)[-1]: t for r, t in env.taxonomy.labels(env.bridges.get(q, q)).items()} if env.taxonomy else {}
    labels.update(n.labels.get(q, {}))
    return {
        "source": source(ctx), "concept": n.qstr(q), "label": label_of(ctx, q), "labels": dict(sorted(labels.items())),
        "kind": _kind(ctx, q, c), "balance": c.balance, "period_type": c.period_type,
        "data_type": n.qstr(QName.from_clark(c.data_type)) if c.data_type else None, "abstract": c.abstract,
        "reported_facts": len(env.index.by_concept.get(q, ())), "rules": rule_scopes(ctx, q),
    }


def _kind(ctx: ToolContext, q: QName, c: Concept) -> str:
    """axis | table | member | abstract | line_item | unknown, from the schema or, lacking it, usage."""
    n = names(ctx.env)
    if c.is_dimension or q in n.axis_members:
        return "axis"
    if c.is_hypercube or any(cube.hypercube == q for cube in ctx.env.dims.cubes):
        return "table"
    if (c.data_type or "").endswith(DOMAIN_TYPE) or any(q in ax.members for cube in ctx.env.dims.cubes for ax in cube.axes.values()):
        return "member"
    if c.abstract:
        return "abstract"
    return "line_item" if c.data_type or _reported(ctx, q) else "unknown"


# -- get_calc_children / get_calc_parents ----------------------------------------------------------
def _calc(ctx: ToolContext, args: dict, *, down: bool) -> dict:
    q = resolve_concept(ctx, args["concept"])
    env, n = ctx.env, names(ctx.env)
    key = "children" if down else "parents"
    tables = statement_has_table(ctx)
    groups: list[dict] = []
    arcs = env.index.calc_children(q) if down else sorted(env.index.calc_parents(q), key=lambda a: (a.role, a.order))
    by_role: dict[str, list] = defaultdict(list)
    for a in arcs:
        by_role[a.role].append({"concept": n.qstr(a.target if down else a.source), "weight": dec_str(a.weight)})
    for role in sorted(by_role):
        groups.append({"uri": role, "role": role_short(role), "title": role_title(ctx, role), "source": "filing",
                       "statement_has_table": tables.get(role), key: ctx.order(by_role[role], key, q, role)})
    if env.taxonomy is not None:
        groups += _taxonomy_calc(ctx, env.bridges.get(q, q), down=down)
    if "role" in args:
        uri = resolve_role(ctx, args["role"], sorted(set(env.index.calc_roles) | {g["uri"] for g in groups}))
        groups = [g for g in groups if g["uri"] == uri]
    shown_tx = [g for g in groups if g["source"] == "taxonomy"]
    obs: dict[str, Any] = {"source": "taxonomy+filing" if env.taxonomy is not None else "filing", "concept": n.qstr(q),
                           "roles": [g for g in groups if g["source"] == "filing"] + shown_tx[:MAX_TAXONOMY_ROLES]}
    for g in obs["roles"]:
        del g["uri"]
    if len(shown_tx) > MAX_TAXONOMY_ROLES:
        obs["more_taxonomy_roles"] = len(shown_tx) - MAX_TAXONOMY_ROLES
    if not obs["roles"]:
        where = "" if env.taxonomy is not None else " in the filer's linkbases (no taxonomy loaded)"
        obs["note"] = f"{n.qstr(q)} has no calculation {key}{where}"
    return obs


def _taxonomy_calc(ctx: ToolContext, q: QName, *, down: bool) -> list[dict]:
    tx, n = ctx.env.taxonomy, names(ctx.env)
    rows = tx.calc_children(q) if down else tx.calc_parents(q)
    by_role: dict[str, list] = defaultdict(list)
    for role, other, weight, _order in rows:
        by_role[role].append({"concept": n.qstr(other), "weight": dec_str(weight)})
    ordered = sorted(by_role, key=lambda r: ("/statement/" not in r, r))
    key = "children" if down else "parents"
    return [{"role": role_short(r), "title": role_title(ctx, r), "source": "taxonomy", "uri": r,
             key: ctx.order(by_role[r], key, q, r)} for r in ordered]


def get_calc_children(ctx: ToolContext, args: dict) -> dict:
    return _calc(ctx, args, down=True)


def get_calc_parents(ctx: ToolContext, args: dict) -> dict:
    return _calc(ctx, args, down=False)


# -- get_dimension_members -----------------------------------------------------------------------
def get_dimension_members(ctx: ToolContext, args: dict) -> dict:
    env, n = ctx.env, names(ctx.env)
    roles = sorted({c.role for c in env.dims.cubes})
    if "role" not in args and "concept" not in args:
        raise ToolError("bad_arguments", "give role (a statement or disclosure) or concept (a line item or axis)",
                        [role_short(r) for r in roles])
    cubes = env.cubes(resolve_role(ctx, args["role"], roles)) if "role" in args else env.cubes()
    if "concept" in args:
        q = resolve_concept(ctx, args["concept"])
        cubes = [c for c in cubes if q in c.primary_items or q in c.axes or any(q in ax.members for ax in c.axes.values())]
    cubes = sorted(cubes, key=lambda c: (c.role, c.hypercube.clark()))
    obs: dict[str, Any] = {"source": "filing", "cubes": [_cube_view(ctx, c) for c in cubes[:MAX_CUBES]]}
    if len(cubes) > MAX_CUBES:
        obs["more_cubes"] = len(cubes) - MAX_CUBES
    if not cubes:
        obs["note"] = "no table (hypercube) of the filing matches"
    return obs


def _cube_view(ctx: ToolContext, cube) -> dict:
    n = names(ctx.env)
    items = sorted(n.qstr(q) for q in cube.primary_items)
    axes = []
    for axis_q in sorted(cube.axes, key=n.qstr):
        ax = cube.axes[axis_q]
        axes.append({"axis": n.qstr(axis_q), "domains": sorted(n.qstr(d) for d in ax.domains),
                     "members": ctx.order(sorted(n.qstr(m) for m in ax.members if m not in ax.domains), "members",
                                          cube.role, axis_q),
                     "default": n.qstr(ax.default) if ax.default is not None else None})
    view = {"role": role_short(cube.role), "title": role_title(ctx, cube.role), "table": n.qstr(cube.hypercube),
            "closed": cube.closed, "axes": axes, "line_items": items[:MAX_LINE_ITEMS]}
    if cube.arcrole.endswith("notAll"):
        view["excludes"] = True
    if len(items) > MAX_LINE_ITEMS:
        view["more_line_items"] = len(items) - MAX_LINE_ITEMS
    return view


STATIC_TOOLS: tuple[Tool, ...] = (
    Tool("search_concepts", "Find concepts by name or label words, e.g. 'accounts receivable'. Concepts the filing "
         "reports come first.", "static",
         object_schema({"text": {"type": "string", "minLength": 1, "description": "words of the name or label"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 25, "description": "at most this many (default 10)"}},
                       ("text",)), search_concepts),
    Tool("get_concept", "A concept's attributes: labels, balance, period type, data type, kind, and which DQC rules "
         f"({', '.join(agent_rules())}) can check it.", "static", object_schema({"concept": CONCEPT_ARG}, ("concept",)), get_concept),
    Tool("get_calc_children", "A concept's calculation children with weights, per statement role (the filer's "
         "linkbase, then the taxonomy's).", "static",
         object_schema({"concept": CONCEPT_ARG, "role": ROLE_ARG}, ("concept",)), get_calc_children),
    Tool("get_calc_parents", "The totals a concept adds into, with its weight, per statement role.", "static",
         object_schema({"concept": CONCEPT_ARG, "role": ROLE_ARG}, ("concept",)), get_calc_parents),
    Tool("get_dimension_members", "The tables of a role, or those using a concept: axes, domains, members, defaults "
         "and line items. Give role or concept.", "static",
         object_schema({"role": ROLE_ARG, "concept": CONCEPT_ARG}), get_dimension_members),
)
