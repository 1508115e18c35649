"""Members by meaning: "Greater China", "energy generation and storage", "services", "iPhone".

A question names a segment, product or region in the words the statements print, never as
``aapl:GreaterChinaSegmentMember`` on ``us-gaap:StatementBusinessSegmentsAxis``. This module reads
those words against every member the filing's axes use (its contexts, and its tables' members), by
all of their labels: the filer's in every role (standard, terse, verbose...), the taxonomy's, and the
member's own name split into words. It ranks (axis, member) pairs by how completely a label is named,
and says why each matched (docs/query-forms.md, "Members by meaning"). The tool ``resolve_member``
(:data:`MEMBER_TOOLS`) shows them, optionally only those a concept's facts use; its ``dimensions``
is the set of members the words name together, one per axis, ready for ``find_facts``.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from auditflow.env.envcache import memo
from auditflow.env.names import names, resolve_concept, role_short
from auditflow.env.tool_base import CONCEPT_ARG, MAX_CLOSE_MATCHES, Tool, ToolContext, ToolError, object_schema
from auditflow.xbrl.qname import QName

MAX_CANDIDATES = 8
STOP_WORDS = frozenset({"the", "of", "and", "for", "in", "on", "a", "an", "to", "by", "its", "with", "from", "member",
                        "members", "domain", "axis"})
# words a member's label adds that the question need not repeat ("Americas Segment" is named by "Americas")
FILLER = frozenset({"segment", "total", "net", "consolidated", "reportable", "operating", "line", "category", "business"})
_SUFFIX = re.compile(r"\s*\[(?:member|domain|axis|abstract)\]\s*$", re.IGNORECASE)
_ROLE_RANK = {"terseLabel": 0, "label": 1, "verboseLabel": 2, "totalLabel": 3}


def words(text: str) -> frozenset[str]:
    """The content words of a text, lower-case and singular ("Services" and "service" are one word;
    "U.S." is "us")."""
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower().replace(".", "").replace("'", "")):
        if w in STOP_WORDS:
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.add(w)
    return frozenset(out)


def _name_words(local: str) -> str:
    """``GreaterChinaSegmentMember`` -> ``Greater China Segment``."""
    local = re.sub(r"(Member|Domain)$", "", local)
    return " ".join(re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", local))


@dataclass(frozen=True)
class MemberLabel:
    """One label of a member on one axis, as the table behind the search holds it."""

    axis: QName
    member: QName
    text: str
    source: str  # "the filer's terseLabel", "the taxonomy's label", "its name"
    rank: int  # lower: a label the statements print (terse, standard) rather than a name
    words: frozenset[str]
    facts: int


@dataclass(frozen=True)
class MemberCandidate:
    """An (axis, member) pair the words may name, with the label that matched and why."""

    axis: str  # prefixed, as tool arguments write it
    member: str
    label: str
    reason: str
    facts: int  # facts the filing reports with this member on this axis
    whole: bool  # every word of the label (but filler such as "segment") is in the text
    core: frozenset[str]  # the label's words that count


def member_labels(env) -> list[MemberLabel]:
    """Every label of every member on every axis of the filing, built once per environment."""
    def build() -> list[MemberLabel]:
        n = names(env)
        facts = _pair_facts(env, env.filing.facts)
        pairs = {(a, m) for a, ms in n.axis_members.items() for m in ms if isinstance(m, QName)}
        for cube in env.dims.cubes:
            pairs |= {(a, m) for a, ax in cube.axes.items() for m in ax.members if m not in ax.domains}
        tx = env.taxonomy
        out = []
        for axis, member in sorted(pairs, key=lambda am: (str(am[0]), str(am[1]))):
            texts: dict[str, tuple[int, str]] = {}
            for role, text in n.labels.get(member, {}).items():
                texts.setdefault(_SUFFIX.sub("", text), (_ROLE_RANK.get(role, 4), f"the filer's {role}"))
            if tx is not None:
                for role_uri, text in sorted(tx.labels(env.bridges.get(member, member)).items()):
                    role = role_short(role_uri)
                    if role != "documentation":
                        texts.setdefault(_SUFFIX.sub("", text), (5 + _ROLE_RANK.get(role, 4), f"the taxonomy's {role}"))
            texts.setdefault(_name_words(member.local), (10, "its name"))
            for text, (rank, source) in sorted(texts.items(), key=lambda t: (t[1][0], t[0])):
                if w := words(text):
                    out.append(MemberLabel(axis, member, text, source, rank, w, facts[(axis, member)]))
        return out

    return memo(env, "member_labels", build)


def _pair_facts(env, facts) -> Counter:
    """How many of ``facts`` carry each (axis, explicit member) pair."""
    counts: Counter = Counter()
    for f in facts:
        ctx = env.filing.contexts.get(f.context_id)
        for axis, member in ctx.dimensions if ctx is not None else ():
            if isinstance(member, QName):
                counts[(axis, member)] += 1
    return counts


def find_members(env, text: str, *, concept: QName | None = None, limit: int = MAX_CANDIDATES) -> list[MemberCandidate]:
    """The (axis, member) pairs ``text`` names, best first: a label named whole before one named in part,
    more of its words before fewer, then a label the statements print before a name, then by facts.
    A label counts when the text holds all its words (filler aside) or at least half of them. With
    ``concept``, only the pairs its facts use, counted on its facts: one member may sit on two axes
    (Tesla reports its energy segment's revenue on the segments axis, its contract liabilities on the
    product axis), and which one a question means depends on the line item."""
    want = words(text)
    if not want:
        return []
    n = names(env)
    only = _pair_facts(env, env.index.by_concept.get(concept, ())) if concept is not None else None
    best: dict[tuple[QName, QName], tuple[tuple, MemberLabel, frozenset[str], bool]] = {}
    for lab in member_labels(env):
        if only is not None:
            if (lab.axis, lab.member) not in only:
                continue
            lab = MemberLabel(lab.axis, lab.member, lab.text, lab.source, lab.rank, lab.words, only[(lab.axis, lab.member)])
        core = (lab.words - FILLER) or lab.words
        hit = core & want
        if not hit:
            continue
        whole = hit == core
        if not whole and len(hit) * 2 < len(core) and not want <= lab.words:
            continue
        key = (not whole, -len(hit), len(core) - len(hit), lab.rank, -lab.facts, n.qstr(lab.axis), n.qstr(lab.member))
        pair = (lab.axis, lab.member)
        if pair not in best or key < best[pair][0]:
            best[pair] = (key, lab, core, whole)
    out = []
    for key, lab, core, whole in sorted(best.values(), key=lambda b: b[0])[:limit]:
        axis, member = n.qstr(lab.axis), n.qstr(lab.member)
        how = "names all of" if whole else f"names {len(core & want)} of {len(core)} words of"
        reason = (f"{text.strip()!r} {how} {lab.text!r} ({lab.source} of {member}) on {axis}; "
                  f"{lab.facts} facts with it")
        out.append(MemberCandidate(axis, member, lab.text, reason, lab.facts, whole, core))
    return out


def named_dimensions(text: str, candidates: list[MemberCandidate]) -> dict[str, str]:
    """The members the words name together, one per axis: the best-ranked labels named whole, each adding
    words no better one already took ("Greater China" leaves "China" nothing to add); when no label is
    named whole, the best label that holds all the words ("wearables" in "Wearables, Home and
    Accessories"). Only members the filing reports facts with."""
    want = words(text)
    taken: dict[str, str] = {}
    covered: set[str] = set()
    for c in candidates:
        if c.whole and c.axis not in taken and not c.core <= covered and c.facts:
            taken[c.axis] = c.member
            covered |= c.core
    left = want if not taken else frozenset()  # a label named whole: the other words are the line item's
    for c in candidates:
        if left and not c.whole and c.axis not in taken and c.facts and left <= c.core:
            taken[c.axis] = c.member
            left = frozenset()
    return dict(sorted(taken.items()))


# -- the tool -------------------------------------------------------------------------------------------
def resolve_member(ctx: ToolContext, args: dict) -> dict:
    """``resolve_member``: words -> the filing's (axis, member) pairs they name, ranked, with reasons."""
    phrase = " ".join(str(args["phrase"]).split())
    concept = resolve_concept(ctx, args["concept"]) if "concept" in args else None
    found = find_members(ctx.env, phrase, concept=concept)
    if not found:
        labels = sorted({lab.text for lab in member_labels(ctx.env) if lab.facts})
        whose = f" used by {names(ctx.env).qstr(concept)}" if concept is not None else ""
        raise ToolError("bad_arguments", f"no member of the filing's axes{whose} has a label with the words of "
                        f"{phrase!r}: give a segment, product or region as the statements print it",
                        difflib.get_close_matches(phrase, labels, n=MAX_CLOSE_MATCHES, cutoff=0.4))
    ranked = [{"rank": i, "axis": c.axis, "member": c.member, "label": c.label, "facts": c.facts, "reason": c.reason}
              for i, c in enumerate(found, 1)]
    return {"phrase": phrase, "candidates": ctx.order(ranked, "resolve_member", phrase),
            "dimensions": named_dimensions(phrase, found), "count": len(ranked)}


MEMBER_TOOLS: tuple[Tool, ...] = (
    Tool("resolve_member", "Find the members of the filing's axes that words name ('Greater China', 'iPhone', "
         "'services'), best first, by all their labels, each with its axis, the label that matched and how many "
         "facts use it; 'dimensions' is the set of members named together, ready for find_facts.", "static",
         object_schema({"phrase": {"type": "string", "minLength": 1,
                                   "description": "the segment, product or region words of the question"},
                        "concept": {**CONCEPT_ARG, "description": "only the members this concept's facts use, "
                                    "e.g. us-gaap:Revenues"}},
                       ("phrase",)), resolve_member),
)
