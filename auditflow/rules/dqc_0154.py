"""DQC.US.0154 — Tax reconciliation item without its US-GAAP concept (docs/rules/DQC_US_0154.md).

Since 2022 the US-GAAP taxonomy has concepts for the foreign-derived intangible income deduction (FDII),
global intangible low-taxed income (GILTI), the base erosion and anti-abuse tax (BEAT), and it has long had
the foreign rate differential. In an income tax disclosure, a numeric concept whose label (in a label role
the network uses) names one of these, but which is not the dedicated concept, is a violation: the filer
made an extension, or used a broader concept, for an item the taxonomy covers.
"""
from __future__ import annotations

from auditflow.rules.common import US_GAAP, Collector, gate, in_family
from auditflow.rules.properties import declared_type, networks
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0154"
STANDARD_LABEL = "http://www.xbrl.org/2003/role/label"
TAX_CONCEPTS = frozenset({"IncomeTaxReconciliationIncomeTaxExpenseBenefitAtFederalStatutoryIncomeTaxRate",
                          "EffectiveIncomeTaxRateReconciliationAtFederalStatutoryIncomeTaxRate", "IncomeTaxExpenseBenefit",
                          "EffectiveIncomeTaxRateContinuingOperations"})
NON_NUMERIC = ("stringItemType", "textBlockItemType", "domainItemType", "booleanItemType", "dateItemType",
               "enumerationSetItemType", "enumerationItemType", "normalizedStringItemType", "anyURIItemType")


def _gilti(text: str, lower: str) -> bool:
    return (any(w in lower for w in ("gilti", "global intangible low-taxed income", "global intangible low taxed income",
                                     "net controlled foreign corporation", "cfc"))
            or ("NCTI" in text and "nctio" not in lower))


# code, what, the dedicated concepts, test of the label (text, lower case), words that make the label a mix
ITEMS = (
    ("DQC.US.0154.10068", "foreign-derived intangible income (FDII)",
     ("EffectiveIncomeTaxRateReconciliationFdiiPercent", "EffectiveIncomeTaxRateReconciliationFdiiAmount"),
     lambda t, lo: any(w in lo for w in ("fdii", "foreign-derived intangible income", "foreign derived intangible income",
                                        "foreign-derived deduction eligible income", "fddei")),
     ("gilti", "other", "beat", "and", " net of")),
    ("DQC.US.0154.10069", "global intangible low-taxed income (GILTI)",
     ("EffectiveIncomeTaxRateReconciliationGiltiPercent", "EffectiveIncomeTaxRateReconciliationGiltiAmount"),
     _gilti, ("fdii", "other", "beat", "and", " net of")),
    ("DQC.US.0154.10070", "the base erosion and anti-abuse tax (BEAT)",
     ("EffectiveIncomeTaxRateReconciliationBeatAmount", "EffectiveIncomeTaxRateReconciliationBeatPercent"),
     lambda t, lo: any(w in lo for w in ("beat", "base erosion and anti-abuse", "base erosion and anti abuse")),
     ("fdii", "other", "gilti", "and", " net of")),
    ("DQC.US.0154.10071", "the foreign income tax rate differential",
     ("IncomeTaxReconciliationForeignIncomeTaxRateDifferential", "EffectiveIncomeTaxRateReconciliationForeignIncomeTaxRateDifferential"),
     lambda t, lo: "foreign" in lo and "rate" in lo and "differential" in lo,
     ("fdii", "other", "gilti", "beat", "and", " net of")),
)
MESSAGE = (
    "{concept} has the label \"{label}\" in the income tax disclosure {network}: it reports {what}, for which the "
    "US-GAAP taxonomy has its own concepts, {dedicated}. Tag the item with the one that fits (percentage or amount)."
)


def _numeric(env, q) -> bool:
    declared = declared_type(env, q)
    if declared is not None:
        return declared not in NON_NUMERIC
    return any(f.unit_id is not None for f in env.index.by_concept.get(q, ()))


def _labels(env) -> dict:
    """(concept, role) -> label text, English preferred."""
    out: dict = {}
    for lab in env.filing.labels:
        key = (lab.concept, lab.role)
        if key not in out or lab.lang.lower().startswith("en") and not out[key][0]:
            out[key] = (lab.lang.lower().startswith("en"), lab.text)
    return {k: v[1] for k, v in out.items()}


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    labels = None
    for role in networks(env, "- Disclosure -"):
        concepts = env.index.pre_concepts.get(role, set())
        if not any(q.local in TAX_CONCEPTS and in_family(q, US_GAAP) for q in concepts):
            continue
        labels = labels if labels is not None else _labels(env)
        roles = sorted({a.preferred_label or STANDARD_LABEL for (r, _s), arcs in env.index.pre_down.items() if r == role
                        for a in arcs})
        network = env.role_definition(role)
        for q in sorted(concepts, key=lambda q: q.clark()):
            if not _numeric(env, q):
                continue
            seen = set()
            for label_role in roles:
                text = labels.get((q, label_role))
                if text is None or text in seen:
                    continue
                seen.add(text)
                lower = text.lower()
                for code, what, dedicated, names_it, mixed in ITEMS:
                    if not names_it(text, lower) or any(w in lower for w in mixed):
                        continue
                    if q.local in dedicated and in_family(q, US_GAAP):
                        c.consistent(None, f"{what} tagged with {q.local}", concept=q)
                        continue
                    c.violation(code, None, concept=q, role=network, network=network, label=text, what=what,
                                dedicated=" or ".join(dedicated))
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Tax reconciliation item without its US-GAAP concept", messages={code: MESSAGE for code, *_ in ITEMS},
    needs=frozenset({Need.FILER_PRE, Need.FACTS}), run=run,
    fix_hint="Tag {concept} with the dedicated US-GAAP concept its label names.",
))
