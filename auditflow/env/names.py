"""Names as a model writes them, resolved against one filing: concepts, periods, dimensions, roles.

Every argument a model passes is text: ``us-gaap:Assets``, ``2024-01-01..2024-12-31``,
``{"srt:ProductOrServiceAxis": "acme:WidgetsMember"}``, ``ConsolidatedBalanceSheets``. This module
turns that text into the environment's objects or raises a :class:`ToolError` whose close matches
are themselves valid arguments, so a model can copy one into its next call. The tables behind it
are built once per environment (:func:`names`).
"""
from __future__ import annotations

import datetime as dt
import difflib
import re
from collections import defaultdict
from dataclasses import dataclass

from auditflow.env.envcache import memo
from auditflow.env.query import QueryError, parse_period
from auditflow.env.tool_base import MAX_CLOSE_MATCHES, ToolContext, ToolError
from auditflow.graphs.environment import AuditEnvironment
from auditflow.xbrl.duplicates import fact_alignment_key
from auditflow.xbrl.model import Fact, Member, Period, TypedMember
from auditflow.xbrl.qname import QName, standard_prefix

QNAME_RE = re.compile(r"^([A-Za-z_][\w.\-]*):([A-Za-z_][\w.\-]*)$")
SKIPPED_LABEL_ROLES = ("documentation",)
_FAR = dt.date(9999, 12, 31)
# Standard prefixes a model may use although the filing declares no such namespace; the taxonomy
# graph matches a concept by namespace family, so the year here is only a placeholder.
STANDARD_NAMESPACES = {
    "us-gaap": "http://fasb.org/us-gaap/2024", "srt": "http://fasb.org/srt/2024", "dei": "http://xbrl.sec.gov/dei/2024",
    "us-gaap-ebp": "http://fasb.org/us-gaap-ebp/2024", "ecd": "http://xbrl.sec.gov/ecd/2024",
}  # sorts periods without an end (forever) last


@dataclass
class Names:
    """Lookup tables of one filing, built once (see :func:`names`)."""

    ns_prefix: dict[str, str]
    prefix_ns: dict[str, list[str]]
    known: set[QName]
    by_local: dict[str, list[QName]]
    labels: dict[QName, dict[str, str]]
    periods: set[Period]
    axis_members: dict[QName, set[Member]]
    facts_by_key: dict[str, Fact]
    twins: dict[str, tuple[str, ...]]

    def qstr(self, q: QName) -> str:
        """``us-gaap:Assets``: the conventional prefix for standard namespaces, else the filer's."""
        p = standard_prefix(q.namespace) or self.ns_prefix.get(q.namespace) or q.prefix
        return f"{p}:{q.local}" if p else (q.local if q.namespace.startswith("http://www.xbrl.org/dtr/") else q.clark())


def names(env: AuditEnvironment) -> Names:
    return memo(env, "names", lambda: _build(env))


def _build(env: AuditEnvironment) -> Names:
    filing = env.filing
    ns_prefix: dict[str, str] = {}
    prefix_ns: dict[str, list[str]] = defaultdict(list)
    for prefix, ns in sorted(filing.namespaces.items(), key=lambda pn: (pn[0] or "")):
        if prefix:
            ns_prefix.setdefault(ns, prefix)
            prefix_ns[prefix].append(ns)
    axis_members: dict[QName, set[Member]] = defaultdict(set)
    for ctx in filing.contexts.values():
        for axis, member in ctx.dimensions:
            axis_members[axis].add(member)
    known = set(filing.concepts) | set(axis_members)
    known |= {m for ms in axis_members.values() for m in ms if isinstance(m, QName)}
    for q in sorted(known):
        if q.prefix:
            ns_prefix.setdefault(q.namespace, q.prefix)
        for p in (standard_prefix(q.namespace), q.prefix):
            if p and q.namespace not in prefix_ns[p]:
                prefix_ns[p].append(q.namespace)
    by_local: dict[str, list[QName]] = defaultdict(list)
    for q in sorted(known):
        by_local[q.local].append(q)
    groups: dict[tuple, list[str]] = defaultdict(list)
    for f in filing.facts:
        groups[fact_alignment_key(filing, f)].append(f.key)
    twins = {k: tuple(keys) for keys in groups.values() for k in keys}
    return Names(ns_prefix, dict(prefix_ns), known, dict(by_local), _labels(env), {c.period for c in filing.contexts.values()},
                 dict(axis_members), {f.key: f for f in filing.facts}, twins)


def _labels(env: AuditEnvironment) -> dict[QName, dict[str, str]]:
    """The filer's labels by short role name (``label``, ``terseLabel``...), en-US preferred."""
    ranked: dict[QName, dict[str, tuple[int, str]]] = defaultdict(dict)
    for lab in env.filing.labels:
        role = lab.role.rstrip("/").rsplit("/", 1)[-1]
        if role in SKIPPED_LABEL_ROLES:
            continue
        rank = 0 if lab.lang.lower() == "en-us" else 1 if lab.lang.lower().startswith("en") else 2
        per = ranked[lab.concept]
        if role not in per or rank < per[role][0]:
            per[role] = (rank, lab.text)
    return {q: {r: t for r, (_, t) in sorted(per.items())} for q, per in ranked.items()}


def label_of(ctx: ToolContext, q: QName) -> str | None:
    """The standard label: the taxonomy's when it has one, else the filer's, else None."""
    tx = ctx.env.taxonomy
    if tx is not None and (text := tx.labels(ctx.env.bridges.get(q, q)).get("http://www.xbrl.org/2003/role/label")):
        return text
    return names(ctx.env).labels.get(q, {}).get("label")


# -- concepts ------------------------------------------------------------------------------------
def exists(ctx: ToolContext, q: QName) -> bool:
    tx = ctx.env.taxonomy
    return q in names(ctx.env).known or (tx is not None and tx.concept(q) is not None)


def resolve_concept(ctx: ToolContext, text: str, *, what: str = "concept") -> QName:
    """``us-gaap:Assets`` (or Clark ``{ns}Assets``) -> the QName the filing or taxonomy knows.

    :raises ToolError: ``malformed_qname`` or ``unknown_concept``, with close matches.
    """
    n, t = names(ctx.env), text.strip()
    if t.startswith("{") and "}" in t:
        q = QName.from_clark(t)
        if exists(ctx, q):
            return q
        raise ToolError("unknown_concept", f"{what} {t} is not in the filing", close_concepts(ctx, q.local))
    m = QNAME_RE.match(t)
    if m is None:
        guess = _local_guess(t)
        raise ToolError("malformed_qname", f"{what} {text!r} is not a prefixed name like us-gaap:Assets",
                        close_concepts(ctx, guess) if guess else [])
    prefix, local = m.groups()
    for ns in n.prefix_ns.get(prefix, ()):
        q = QName(ns, local, prefix)
        if exists(ctx, q):
            return q
    tx = ctx.env.taxonomy
    if tx is not None and prefix in STANDARD_NAMESPACES:  # a standard concept from a namespace the filing never uses
        hit = tx.concept(QName(STANDARD_NAMESPACES[prefix], local, prefix))  # matched by family, any year
        if hit is not None:
            return hit.qname
    where = "the filing or the taxonomy" if tx is not None else "the filing"
    hint = "" if prefix in n.prefix_ns or tx is not None else f" (unknown prefix {prefix!r})"
    raise ToolError("unknown_concept", f"{what} {t} is not in {where}{hint}", close_concepts(ctx, local))


def _local_guess(text: str) -> str:
    """The local name a malformed concept most likely means: ``us-gaap_Assets`` (an element id),
    ``Assets`` (no prefix), ``us-gaap:Assets total`` (trailing words)."""
    if (m := re.search(r"[A-Za-z_][\w.\-]*:([A-Za-z_][\w.\-]*)", text)) is not None:
        return m.group(1)
    if re.fullmatch(r"[\w.\-]+_[A-Za-z][\w.\-]*", text.strip()):
        return text.strip().split("_", 1)[1]
    return max(re.findall(r"[A-Za-z_][\w\-]*", text), key=len, default="")


def close_concepts(ctx: ToolContext, local: str) -> list[str]:
    """Valid concept names near ``local``: exact (any case), containing it, similar; then the taxonomy."""
    n, needle = names(ctx.env), local.lower()
    locals_ = sorted(n.by_local)
    picked = [x for x in locals_ if x.lower() == needle]
    picked += sorted((x for x in locals_ if needle and needle in x.lower() and x not in picked), key=lambda x: (len(x), x))
    picked += [x for x in difflib.get_close_matches(local, locals_, n=MAX_CLOSE_MATCHES, cutoff=0.6) if x not in picked]
    out = list(dict.fromkeys(n.qstr(q) for x in picked for q in n.by_local[x]))
    if not out and ctx.env.taxonomy is not None and local:  # the taxonomy search costs ~10 ms: only when needed
        out += [s for s in (n.qstr(q) for q in ctx.env.taxonomy.search(local, limit=MAX_CLOSE_MATCHES)) if s not in out]
    return out[:MAX_CLOSE_MATCHES]


# -- periods -------------------------------------------------------------------------------------
def concept_periods(ctx: ToolContext, concept: QName | None) -> list[Period]:
    """The periods the filing reports for ``concept`` (all periods when None), oldest first."""
    env = ctx.env
    if concept is None:
        pool = names(env).periods
    else:
        pool = {env.filing.contexts[f.context_id].period for f in env.index.by_concept.get(concept, ())}
    return sorted(pool, key=_period_order)


def _period_order(p: Period) -> tuple:
    return (p.end or p.start or _FAR, p.days, p.start or _FAR)


def resolve_period(ctx: ToolContext, text: str, *, concept: QName | None = None) -> Period:
    """``2024-12-31`` / ``2024-01-01..2024-12-31`` -> a Period the filing has a context for.

    :raises ToolError: ``bad_arguments`` (notation) or ``period_not_in_filing``; close matches are
        the filing's periods for the concept nearest to the one asked for.
    """
    try:
        p = parse_period(text)
    except QueryError as exc:
        raise ToolError("bad_arguments", str(exc), [str(x) for x in concept_periods(ctx, concept)][-MAX_CLOSE_MATCHES:]) from None
    if p in names(ctx.env).periods:
        return p
    cands = concept_periods(ctx, concept) or concept_periods(ctx, None)
    raise ToolError("period_not_in_filing", f"the filing reports nothing for period {p}", nearest_periods(p, cands))


def nearest_periods(p: Period, candidates) -> list[str]:
    """Candidate periods in the one notation, nearest to ``p`` first (same kind, then by dates)."""
    return [str(c) for c in sorted(candidates, key=lambda c: (_distance(p, c), _period_order(c)))][:MAX_CLOSE_MATCHES]


def _distance(a: Period, b: Period) -> int:
    ends = abs(((a.end or _FAR) - (b.end or _FAR)).days)
    starts = abs(((a.start or a.end or _FAR) - (b.start or b.end or _FAR)).days)
    return ends + starts + (0 if a.is_instant == b.is_instant else 10_000)


# -- dimensions ----------------------------------------------------------------------------------
def resolve_dimensions(ctx: ToolContext, dims: dict[str, str]) -> dict[QName, Member]:
    """``{"axis": "member"}`` -> ``{QName: Member}``; typed axes take the member text as is."""
    n = names(ctx.env)
    out: dict[QName, Member] = {}
    for axis_text, member_text in sorted(dims.items()):
        axis = resolve_concept(ctx, axis_text, what="axis")
        used = n.axis_members.get(axis, set())
        if used and all(isinstance(m, TypedMember) for m in used):
            out[axis] = TypedMember(member_text.strip())
        else:
            out[axis] = resolve_concept(ctx, member_text, what=f"member of {n.qstr(axis)}")
    return out


def dims_json(ctx: ToolContext, dims) -> dict[str, str]:
    """Dimensions (pairs or a dict) as ``{"srt:Axis": "acme:Member"}`` sorted by axis."""
    n = names(ctx.env)
    pairs = dims.items() if isinstance(dims, dict) else dims
    shown = {n.qstr(a): (n.qstr(m) if isinstance(m, QName) else str(m)) for a, m in pairs}
    return dict(sorted(shown.items()))


# -- roles ---------------------------------------------------------------------------------------
def role_short(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1]


def role_title(ctx: ToolContext, uri: str) -> str:
    title = ctx.env.role_definition(uri)
    if not title and ctx.env.taxonomy is not None and (rt := ctx.env.taxonomy.roles().get(uri)) is not None:
        title = rt.definition
    return title or role_short(uri)


def resolve_role(ctx: ToolContext, text: str, candidates: list[str]) -> str:
    """A role by URI, short name or title (any case), or a unique partial match of those."""
    t = text.strip().lower()
    for uri in candidates:
        if t in (uri.lower(), role_short(uri).lower(), role_title(ctx, uri).lower()):
            return uri
    partial = [u for u in candidates if t and (t in role_short(u).lower() or t in role_title(ctx, u).lower())]
    if len(partial) == 1:
        return partial[0]
    shorts = sorted({role_short(u) for u in candidates})
    near = sorted({role_short(u) for u in partial}) or difflib.get_close_matches(text.strip(), shorts, n=MAX_CLOSE_MATCHES, cutoff=0.4)
    what = "matches several roles" if partial else "is not a role of the filing"
    raise ToolError("bad_arguments", f"role {text!r} {what}; use a short name from close_matches", near or shorts)
