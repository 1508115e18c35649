"""DQC.US.0091 — Percentage items greater than 1,000 percent (docs/rules/DQC_US_0091.md).

In XBRL a percentage of 100 % is the number 1, so a percent item above 10 (1,000 %) has almost always been
scaled as if 5 % were 5. DQC selects percent items by their data type (percentItemType); our US-GAAP copy
has no element schema, but the US-GAAP 2024 taxonomy ships the FASB's own list of the concepts this rule
covers (its DQC rules linkbase for 0091), and that list is what we read.
"""
from __future__ import annotations

import functools
from pathlib import Path

from auditflow.errors import AuditflowError
from auditflow.rules.common import US_GAAP, Collector, gate, in_family, not_applicable, numeric_items
from auditflow.rules.registry import Need, RuleSpec, register

RULE = "0091"
CODE = "DQC.US.0091.9376"
LIMIT = 10
# The FASB's list of the percent items DQC.US.0091 covers, in the US-GAAP 2024 taxonomy package.
PERCENT_ITEMS = Path("taxonomy") / "us-gaap-2024" / "dqcrules" / "dqcrules-0091-2024.xsd"
# DQC's source adds the statutory rate back to the percent items (its other EffectiveIncomeTaxRate* items are
# left out, and so are they from the FASB's list) and leaves InvestmentOwnedPercentOfNetAssets out.
ALSO = frozenset({"EffectiveIncomeTaxRateReconciliationAtFederalStatutoryIncomeTaxRate"})
NEVER = frozenset({"InvestmentOwnedPercentOfNetAssets"})
XLINK = "{http://www.w3.org/1999/xlink}"
LINK = "{http://www.xbrl.org/2003/linkbase}"
MESSAGE = (
    "{concept} has a value of {value}, more than 1,000 percent. A percentage is usually between 0 and 1 in XBRL, where 1 "
    "is 100%: check that the value is scaled correctly (200 basis points is 0.02, 5% is 0.05)."
)


@functools.lru_cache(maxsize=2)
def percent_items(path: str) -> frozenset[str]:
    """Local names of the us-gaap concepts the FASB's DQC 0091 definition linkbase lists.

    Read with the standard library's parser, not the filing parser (lxml through ``safexml``): a check
    that hits the filing cache must not import the filing parser (tests/cli/test_cli_imports.py). The
    file is the data root's taxonomy package, not a filer's upload; a DTD (the way to entity expansion
    attacks) is still refused.
    """
    from xml.etree import ElementTree

    try:
        data = Path(path).read_bytes()
        if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
            raise AuditflowError(f"the FASB's DQC 0091 list {path} declares a DTD; refused")
        root = ElementTree.fromstring(data)
    except (OSError, ElementTree.ParseError) as exc:
        raise AuditflowError(f"cannot read the FASB's DQC 0091 list {path}: {exc}") from None
    out = set()
    for link in root.iter(f"{LINK}definitionLink"):
        for loc in link.iter(f"{LINK}loc"):
            href = loc.get(f"{XLINK}href", "")
            if "us-gaap" in href.split("#", 1)[0] and "#us-gaap_" in href:
                out.add(href.rsplit("#us-gaap_", 1)[1])
    if not out:
        raise AuditflowError(f"the FASB's DQC 0091 list {path} names no us-gaap concept")
    return frozenset(out)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    try:
        listed = (percent_items(str(Path(resources.data_root) / PERCENT_ITEMS)) | ALSO) - NEVER
    except AuditflowError as exc:
        return not_applicable(RULE, f"no list: {exc}", f"DQC {RULE} not run: {exc}")
    c = Collector(SPEC, env)
    facts = [f for f in env.filing.facts if f.concept.local in listed and in_family(f.concept, US_GAAP)]
    for f, _ctx, n in numeric_items(env, facts):
        if n > LIMIT:
            c.violation(CODE, f)
        else:
            c.consistent(f)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Percentage items greater than 1,000 percent", messages={CODE: MESSAGE},
    needs=frozenset({Need.FACTS, Need.TAXONOMY}), run=run, resources=(PERCENT_ITEMS,),
    fix_hint="Report {concept} as a fraction of 1 (5% is 0.05): {reported} is more than 1,000 percent.",
    not_applicable=("out of scope", "no data root", "no list"),
))
