"""Concept search by meaning: rank a filing's concepts against a question as an auditor words it.

Version 1 of ``search_concepts`` (:mod:`auditflow.env.static_tools`) shows a label only when it holds
half of the question's words, so "Tesla's capital expenditures in the first half of 2024" found
nothing: the filer's label says "Purchases of property and equipment" (docs/query-forms.md). Here a
question is read as words that may name a line item, and every concept is ranked with BM25 (the
``bm25s`` library) against all it is called:

* the filer's labels in every role (standard, terse, verbose, total, period start and end, negated...),
  each a document of its own, so a question worded like any one of them finds the concept;
* the taxonomy's labels of the concept, and the words of its name (``PaymentsToAcquire...``: the
  us-gaap label linkbase is not in every taxonomy package, the name always is);
* the documentation the filer or the taxonomy gives, weighted lower (it explains, it does not name).

Concepts the filing reports facts for, and those a face statement presents, are ranked up: the
question is about this filing's numbers; headings and dimensional nodes are ranked down. Words that
are a member's label in this filing ("Greater China") still rank, but a concept need not hold them:
the members are ``resolve_member``'s business (:mod:`auditflow.env.members`). Before ranking, the question's period phrase, its filler
("how much", "what was") and the company's own name are dropped, and analyst shorthand ("capex",
"SG&A", "buybacks") adds the words a label uses (:mod:`auditflow.env.shorthand`). The ranking is
deterministic: same filing, same question, same list.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditflow.env.envcache import memo
from auditflow.env.names import names, role_short
from auditflow.env.phrases import parse_period_phrase
from auditflow.env.shorthand import COMPANY_SUFFIXES, FILLER, SHORTHAND
from auditflow.env.tool_base import ToolContext
from auditflow.xbrl.qname import QName

if TYPE_CHECKING:
    from auditflow.graphs.environment import AuditEnvironment

DOC_WEIGHT = 0.35  # documentation explains a concept; a label names it
REPORTED_BOOST = 1.6  # the filing reports facts of it: what an audit question is about
STATEMENT_BOOST = 1.25  # a face statement presents it
EXACT_BOOST = 1.5  # the question's words are exactly one of its labels' words (filler left out of both)
TEXT_BOOST = 1.1  # reported, but as text (a note, a policy): a question asks for a number first
STRUCTURE_WEIGHT = 0.4  # an abstract heading, axis, domain, member, table or line-items node: never the number
_STRUCTURE = re.compile(r"(Abstract|Axis|Domain|Member|Table|LineItems)$")
MIN_SHARE = 0.34  # a hit holds at least a third of the question's own words (shorthand words count too)
# words every label has that name nothing (a stemmed "and" would match every "Property, Plant, and ...")
_STOP = frozenset("a an the of and or to for in on by from with at as its".split())
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class SearchQuery:
    """A question as the ranking reads it: the words kept, the shorthand read, the stems ranked on."""

    text: str  # as given
    words: tuple[str, ...]  # the question's own words that may name a line item, in order
    shorthand: tuple[tuple[str, str], ...]  # (phrase as typed, the label words it added)
    terms: tuple[str, ...]  # stems of words and shorthand, each once, in order
    member_words: tuple[str, ...] = ()  # member labels the words hold ("greater china")

    def units(self) -> list[tuple[frozenset[str], tuple[frozenset[str], ...]]]:
        """What the question names, one unit a shorthand phrase or a word outside one and outside a member's
        label: (its own stems, the stems of each alternative a shorthand stands for). A concept covers a
        unit holding all its own stems or all of one alternative's."""
        out = [(frozenset(stems(phrase)), tuple(frozenset(stems(alt)) for alt in words.split(";")))
               for phrase, words in self.shorthand]
        inside = set().union(*(own for own, _ in out)) if out else set()
        members = set(stems(" ".join(self.member_words)))
        words = [s for s in dict.fromkeys(stems(" ".join(self.words))) if s not in inside]
        kept = [s for s in words if s not in members]
        out += [(frozenset({s}), ()) for s in (kept if kept or out else words)]
        return out


def covered(units: list[tuple[frozenset[str], tuple[frozenset[str], ...]]], held: frozenset[str]) -> int:
    """How many of the question's units (:meth:`SearchQuery.units`) a concept's stems ``held`` cover."""
    return sum(1 for own, alternatives in units if own <= held or any(alt and alt <= held for alt in alternatives))


@dataclass(frozen=True)
class ConceptHit:
    """One ranked concept and why: the text that matched best, where it comes from, how many words."""

    concept: QName
    score: float
    matched: str  # the label (or name words, or documentation) that matched best
    source: str  # "terseLabel", "taxonomy label", "name", "documentation", ...
    shared: int  # of the question's units (words, shorthand phrases), how many the concept's texts cover
    asked: int  # how many units the question has
    reported: bool
    on_statement: bool


@dataclass(frozen=True)
class _Doc:
    concept: QName
    source: str
    text: str


@dataclass
class ConceptIndex:
    """Every concept the filing knows as BM25 documents, built once per environment."""

    labels: list[_Doc]
    documentation: list[_Doc]
    label_bm25: object
    doc_bm25: object | None
    stems_of: dict[QName, frozenset[str]]  # every stem of a concept's labels and name
    doc_stems: dict[QName, frozenset[str]]  # every stem of its documentation
    exact: dict[QName, frozenset[tuple[str, ...]]]  # each label's stems without filler, in order
    reported: frozenset[QName]
    numeric: frozenset[QName]  # reported with a number
    structure: frozenset[QName]  # headings and dimensional nodes (``_STRUCTURE``, or declared abstract)
    on_statement: frozenset[QName]
    company: Company
    members: tuple[str, ...]  # member labels (member_phrases)


# -- words ---------------------------------------------------------------------------------------------
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


_LOCAL = threading.local()  # a stemmer per thread: a Snowball stemmer keeps the word it works on in the object,
# so two cases of `auditflow eval --jobs 2` searching at once corrupted each other's ("IndexError: string
# index out of range" as a search_concepts observation, and a conversation that never replays)


def stems(text: str) -> list[str]:
    """Lower-case word stems (Snowball English) of ``text``, without the words every label has."""
    stemmer = getattr(_LOCAL, "stemmer", None)
    if stemmer is None:
        stemmer = _LOCAL.stemmer = _stemmer()
    return stemmer.stemWords([w for w in _WORD.findall(text.lower()) if w not in _STOP])


def name_words(local: str) -> str:
    """``PaymentsToAcquirePropertyPlantAndEquipment`` -> ``Payments To Acquire Property Plant And Equipment``."""
    return " ".join(re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|$)|[A-Z]?[a-z]+|\d+", local))


def _exact_key(text: str) -> tuple[str, ...]:
    """A label's or a question's naming words as stems, in order: "Accrued warranty, beginning of period"
    and "accrued warranty" read the same (the period is the period tools' business)."""
    return tuple(stems(" ".join(w for w in _WORD.findall(text.lower()) if w not in FILLER)))


@dataclass(frozen=True)
class Company:
    """How a question names the registrant: its name's words and ticker (``words``), dropped from a
    question only when it names the company (its first name word or its ticker, ``names``): "Clubhouse
    Media Group opex" drops "group", "energy revenue" asked of NGL Energy Partners keeps "energy"."""

    names: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()


def read_query(text: str, company: Company = Company(), members: tuple[str, ...] = ()) -> SearchQuery:
    """The words of ``text`` that may name a line item: without its period phrase, its filler and the
    company's own name, plus the label words of the analyst shorthand it uses. ``members``: the member
    labels of the filing's axes (lower case, longest first); words of one the question holds still
    rank, but a concept need not hold them ("Greater China net sales" is a question about net sales)."""
    parsed = parse_period_phrase(text)  # the generator's forms ("year ended September 30, 2023")
    rest = (parsed[1] if parsed else text).lower()
    rest = re.sub(r"['\u2019]s\b", "", rest)  # "Tesla's" -> "tesla"
    rest = re.sub(r"\b(19|20)\d\d\b|\b((year|quarter|month)s? )?to date\b", " ", rest)  # the period tools read them
    used: list[tuple[str, str]] = []
    for phrase, words in sorted(SHORTHAND, key=lambda pw: (-len(pw[0]), pw[0])):
        pattern = re.compile(rf"(?<![\w&]){re.escape(phrase)}(?![\w&])")
        if pattern.search(rest):
            used.append((phrase, words))
            rest = pattern.sub(phrase.replace(" ", "_"), rest)  # joined: a shorter phrase never reads it again
    found = _WORD.findall(rest.replace("&", ""))
    drop = company.words if company.names & set(found) else frozenset()
    own = [w for w in found if w not in FILLER and w not in drop and not any(c.isdigit() for c in w)]
    used.sort(key=lambda pw: text.lower().find(pw[0]))
    terms = list(dict.fromkeys(stems(" ".join(own)) + [s for _, words in used for s in stems(words)]))
    spoken = " ".join(own)
    member_words: list[str] = []
    for label in members:
        if re.search(rf"(?<!\w){re.escape(label)}(?!\w)", spoken) and label not in " ".join(member_words):
            member_words.append(label)
    return SearchQuery(text, tuple(own), tuple(used), tuple(terms), tuple(member_words))


def company_words(env: AuditEnvironment) -> Company:
    """The registrant's name and ticker as lower-case words (:class:`Company`)."""
    name = env.filing.first_fact("EntityRegistrantName")
    ticker = env.filing.first_fact("TradingSymbol")
    name_words = [w for w in _WORD.findall(str(name.value).lower()) if w] if name is not None and name.value else []
    tick = [w for w in _WORD.findall(str(ticker.value).lower())] if ticker is not None and ticker.value else []
    first = [w for w in name_words if w not in COMPANY_SUFFIXES][:1]
    return Company(frozenset(first + tick), frozenset(name_words + tick))


def member_phrases(env: AuditEnvironment) -> tuple[str, ...]:
    """The labels of the members the filing's facts use, as lower-case words, longest first."""
    from auditflow.env.members import member_labels  # the member tool's own table of labels

    out = {" ".join(_WORD.findall(lab.text.lower())) for lab in member_labels(env) if lab.facts}
    return tuple(sorted((p for p in out if p), key=lambda p: (-len(p), p)))


# -- the index -----------------------------------------------------------------------------------------
def _statement_concepts(env: AuditEnvironment) -> frozenset[QName]:
    """Concepts a face statement presents (its presentation tree; parentheticals left out)."""
    roles = {r for r in env.statement_roles() if "parenthetical" not in env.role_definition(r).lower()}
    out: set[QName] = set()
    for (role, source), arcs in env.index.pre_down.items():
        if role in roles:
            out.add(source)
            out.update(a.target for a in arcs)
    return frozenset(out)


def _documents(env: AuditEnvironment) -> tuple[list[_Doc], list[_Doc]]:
    """(label documents, documentation documents) of every concept the filing knows."""
    n = names(env)
    filer_docs: dict[QName, list[str]] = {}
    for lab in env.filing.labels:
        if role_short(lab.role) == "documentation" and lab.lang.lower().startswith("en"):
            filer_docs.setdefault(lab.concept, []).append(lab.text)
    labels: list[_Doc] = []
    documentation: list[_Doc] = []
    tx = env.taxonomy
    for q in sorted(n.known):
        seen: set[str] = set()

        def add(source: str, text: str | None, into: list[_Doc] = labels) -> None:
            key = " ".join((text or "").lower().split())
            if key and key not in seen:
                seen.add(key)
                into.append(_Doc(q, source, " ".join(text.split())))

        for role, text in sorted(n.labels.get(q, {}).items()):
            add(role, text)
        if tx is not None:
            for uri, text in sorted(tx.labels(env.bridges.get(q, q)).items()):
                role = role_short(uri)
                add("documentation" if role == "documentation" else f"taxonomy {role}", text,
                    documentation if role == "documentation" else labels)
        add("name", name_words(q.local))
        for text in sorted(set(filer_docs.get(q, ()))):
            add("documentation", text, documentation)
    return labels, documentation


def _bm25(docs: list[_Doc]):
    if not docs:
        return None
    import bm25s  # only here: the index is built on the first search of a filing

    retriever = bm25s.BM25()
    retriever.index([stems(d.text) or ["\u0000"] for d in docs], show_progress=False)
    return retriever


def concept_index(ctx: ToolContext) -> ConceptIndex:
    """The filing's :class:`ConceptIndex`, built on its first search (about half a second on a large
    filing) and kept with the environment."""
    env = ctx.env

    def build() -> ConceptIndex:
        labels, documentation = _documents(env)
        stems_of: dict[QName, set[str]] = {}
        exact: dict[QName, set[tuple[str, ...]]] = {}
        for d in labels:
            s = stems(d.text)
            stems_of.setdefault(d.concept, set()).update(s)
            exact.setdefault(d.concept, set()).add(_exact_key(d.text))
        doc_stems: dict[QName, set[str]] = {}
        for d in documentation:
            doc_stems.setdefault(d.concept, set()).update(stems(d.text))
        return ConceptIndex(
            labels=labels, documentation=documentation, label_bm25=_bm25(labels), doc_bm25=_bm25(documentation),
            stems_of={q: frozenset(s) for q, s in stems_of.items()},
            doc_stems={q: frozenset(s) for q, s in doc_stems.items()}, exact={q: frozenset(s) for q, s in exact.items()},
            reported=frozenset(q for q, facts in env.index.by_concept.items() if facts),
            numeric=frozenset(q for q, facts in env.index.by_concept.items() if any(f.is_numeric for f in facts)),
            on_statement=_statement_concepts(env), company=company_words(env), members=member_phrases(env),
            structure=frozenset(q for q in names(env).known if _STRUCTURE.search(q.local)
                                or getattr(env.concept(q), "abstract", None)))

    return memo(env, "concept_search_index", build)


# -- ranking -------------------------------------------------------------------------------------------
def rank_concepts(ctx: ToolContext, text: str, limit: int = 10) -> tuple[SearchQuery, list[ConceptHit]]:
    """The question as read, and at most ``limit`` concepts best first (none when no word matches)."""
    index = concept_index(ctx)
    query = read_query(text, index.company, index.members)
    if not query.terms or index.label_bm25 is None:
        return query, []
    best: dict[QName, tuple[float, _Doc]] = {}
    for doc, score in zip(index.labels, index.label_bm25.get_scores(list(query.terms))):
        if score > 0 and score > best.get(doc.concept, (0.0, None))[0]:
            best[doc.concept] = (float(score), doc)
    doc_score: dict[QName, float] = {}
    if index.doc_bm25 is not None:
        for doc, score in zip(index.documentation, index.doc_bm25.get_scores(list(query.terms))):
            if score > doc_score.get(doc.concept, 0.0):
                doc_score[doc.concept] = float(score)
                if doc.concept not in best:
                    best[doc.concept] = (0.0, doc)
    units = query.units()
    exact = _exact_key(" ".join(query.words))
    hits = []
    for q, (label_score, doc) in best.items():
        held = index.stems_of.get(q, frozenset()) | (index.doc_stems.get(q, frozenset()) if doc.source == "documentation"
                                                      else frozenset())
        shared = covered(units, held)
        if not units or shared / len(units) < MIN_SHARE:
            continue
        score = label_score + DOC_WEIGHT * doc_score.get(q, 0.0)
        score *= 0.5 + shared / len(units)  # a concept covering more of the question ranks higher
        if exact and exact in index.exact.get(q, ()):
            score *= EXACT_BOOST
        reported, on_statement = q in index.reported, q in index.on_statement
        score *= (REPORTED_BOOST if q in index.numeric else TEXT_BOOST if reported else 1.0)
        score *= STRUCTURE_WEIGHT if q in index.structure else STATEMENT_BOOST if on_statement else 1.0
        hits.append(ConceptHit(q, round(score, 4), doc.text, doc.source, shared, len(units), reported, on_statement))
    n = names(ctx.env)
    hits.sort(key=lambda h: (-h.score, not h.reported, len(h.concept.local), n.qstr(h.concept)))
    # one hit per shown name (the filing's us-gaap/2023 concept and the taxonomy's 2024 one read the same)
    shown: dict[str, ConceptHit] = {}
    for h in hits:
        shown.setdefault(n.qstr(h.concept), h)
    return query, list(shown.values())[:limit]


def why(hit: ConceptHit) -> str:
    """Why a concept matched, in a few words: "total label, 3 of 3 words; reported; on a statement"."""
    source = hit.source
    if source == "label":
        source = "standard label"
    elif source not in ("name", "documentation"):
        source = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", source).lower()
    words = f"{hit.shared} of {hit.asked} words"
    flags = [f for f, on in (("reported", hit.reported), ("on a statement", hit.on_statement)) if on]
    return "; ".join([f"{source}, {words}", *flags])
