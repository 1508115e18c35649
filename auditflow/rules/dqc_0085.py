"""DQC.US.0085 — Deferred tax footnote concepts on the face statements (docs/rules/DQC_US_0085.md).

The income-tax footnote reports deferred tax assets and liabilities before jurisdictional netting
(DeferredTaxAssetsNet, DeferredTaxLiabilities, DeferredTaxAssetsLiabilitiesNet); the balance sheet reports the
netted amounts (DeferredIncomeTaxAssetsNet, DeferredIncomeTaxLiabilitiesNet). The rule reports a footnote
concept on a face statement (9361) or below Assets, Liabilities or LiabilitiesAndStockholdersEquity in a
calculation (9364, 9365, 9367), and a balance-sheet concept that takes part in no calculation (9362, 9363).
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, facts_named, gate, in_family
from auditflow.rules.ext_lists import statement_networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0085"
FOOTNOTE = ("DeferredTaxAssetsLiabilitiesNet", "DeferredTaxAssetsNet", "DeferredTaxLiabilities")
ON_FACE = "DQC.US.0085.9361"
NO_CALC = {"DeferredIncomeTaxAssetsNet": ("DQC.US.0085.9362", "DeferredTaxAssetsNet", "Assets"),
           "DeferredIncomeTaxLiabilitiesNet": ("DQC.US.0085.9363", "DeferredTaxLiabilities", "Liabilities")}
UNDER_TOTAL = {"DeferredTaxAssetsNet": ("DQC.US.0085.9364", ("Assets",)),
               "DeferredTaxAssetsLiabilitiesNet": ("DQC.US.0085.9365", ("Assets",)),
               "DeferredTaxLiabilities": ("DQC.US.0085.9367", ("Liabilities", "LiabilitiesAndStockholdersEquity"))}
NO_CALC_MESSAGE = (
    "{concept} with a value of {value} takes part in no calculation of the filing. It is a balance sheet concept: "
    "it belongs on the balance sheet, or below a balance sheet total in a footnote. If this is the amount after "
    "jurisdictional netting reported in a footnote, report the amount before netting ({gross}) as well. Either "
    "report it on BalanceSheetLocationAxis or put it in a calculation with {total} as an ancestor."
)
UNDER_TOTAL_MESSAGE = (
    "{concept} is reported with a value of {value} and is a calculation descendant of {total} in {network}. It is "
    "a footnote concept (deferred taxes before jurisdictional netting) and does not belong on the face statements."
)
MESSAGES = {
    ON_FACE: ("{concept} appears in the face financial statements ({network}). It is a footnote concept; on the "
              "balance sheet, deferred taxes are reported with DeferredIncomeTaxAssetsNet or "
              "DeferredIncomeTaxLiabilitiesNet, whichever applies. If the value of {concept} equals one of those, use "
              "that concept on the balance sheet and keep {concept} for the footnote."),
    "DQC.US.0085.9362": NO_CALC_MESSAGE, "DQC.US.0085.9363": NO_CALC_MESSAGE,
    "DQC.US.0085.9364": UNDER_TOTAL_MESSAGE, "DQC.US.0085.9365": UNDER_TOTAL_MESSAGE,
    "DQC.US.0085.9367": UNDER_TOTAL_MESSAGE,
}


def _gaap(q, local: str) -> bool:
    return q.local == local and in_family(q, US_GAAP)


def ancestors(env, local: str) -> dict:
    """{ancestor local name: a role} over the filer's calculation networks, each network walked on its own."""
    out: dict = {}
    for start in {a.target for arcs in env.index.calc_down.values() for a in arcs if _gaap(a.target, local)}:
        for arc in env.index.calc_up.get(start, ()):
            stack, seen = [arc.source], set()
            while stack:
                node = stack.pop()
                if node in seen:
                    continue
                seen.add(node)
                out.setdefault(node.local if in_family(node, US_GAAP) else str(node), arc.role)
                stack += [a.source for a in env.index.calc_up.get(node, ()) if a.role == arc.role]
    return out


def _face(c: Collector, env) -> None:
    if env.filing.document_type is not None and env.filing.document_type.strip() == "8-K":
        c.skipped(None, "an 8-K has no face statements to check")
        return
    statements = statement_networks(env)
    for local in FOOTNOTE:
        where = [r for r in statements if any(_gaap(q, local) for q in env.index.pre_concepts.get(r, ()))]
        concept = next((q for r in where for q in env.index.pre_concepts[r] if _gaap(q, local)), None)
        if where:
            names = ", ".join(env.role_definition(r) or r for r in where)
            c.violation(ON_FACE, None, concept=concept, role=names, network=names)
        else:
            c.consistent(None, f"{ON_FACE}: {local} is not in a statement's presentation")


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    _face(c, env)
    for local, (code, gross, total) in NO_CALC.items():
        in_calc = any(_gaap(a.target, local) for arcs in env.index.calc_down.values() for a in arcs)
        for f in facts_named(env, local):
            ctx = env.filing.contexts.get(f.context_id)
            if f.is_nil or ctx is None or ctx.dimensions:
                continue
            if in_calc:
                c.consistent(f, f"{code}: {local} has a calculation parent")
            else:
                c.violation(code, f, gross=gross, total=total)
    for local, (code, totals) in UNDER_TOTAL.items():
        facts = [f for f in facts_named(env, local) if not f.is_nil]
        if not facts:
            continue
        above = ancestors(env, local)
        hit = next((t for t in totals if t in above), None)
        for f in facts:
            if hit is None:
                c.consistent(f, f"{code}: not below {' or '.join(totals)}")
            else:
                c.violation(code, f, total=hit, network=env.role_definition(above[hit]) or above[hit],
                            role=env.role_definition(above[hit]) or above[hit])
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Deferred tax footnote concepts on the face statements", messages=MESSAGES,
    needs=frozenset({Need.FACTS, Need.FILER_PRE, Need.FILER_CAL}), run=run,
    fix_hint="On the balance sheet use DeferredIncomeTaxAssetsNet or DeferredIncomeTaxLiabilitiesNet; keep the "
             "footnote's deferred tax concepts out of the face statements' calculations.",
    not_applicable=("form not in scope", "no data root", "an 8-K has no face statements"),
))
