"""DQC.US.0041 — Axis with a default member that differs from the base taxonomy (docs/rules/DQC_US_0041.md).

A dimension-default arc of the filer on a standard axis (us-gaap, srt, dei) whose default member is
not the axis's default in the base taxonomy is an error. The base defaults are the 2025 ruleset's
``TAXONOMY_DEFAULTS`` constant (data root), matched by namespace family and local name.
"""
from __future__ import annotations

from auditflow.rules.common import Collector, base_concept, decoded_constant, gate
from auditflow.rules.registry import CONSTANTS_2025, Need, RuleSpec, register
from auditflow.rules.resources import family_key
from auditflow.xbrl.model import DIMENSION_DEFAULT
from auditflow.xbrl.qname import QName

RULE = "0041"
CODE = "DQC.US.0041.73"
MESSAGE = (
    "The dimension default defined for an axis in the US GAAP taxonomy should not be changed in a company "
    "extension taxonomy. The default of {axis} in the base taxonomy is {base_default}, but the filing makes "
    "{filer_default} its default (in {network}). Use the base taxonomy's default member."
)


def _decode(raw: list) -> dict:
    """Axis key -> (axis, default member) in Clark notation, from ``TAXONOMY_DEFAULTS`` (builtins only: cached)."""
    out = {}
    for entry in raw[1:]:
        names = [v for v in entry[1:] if isinstance(v, str)]
        if len(names) == 2:
            out[family_key(QName.from_clark(names[0]))] = (names[0], names[1])
    return out


def base_defaults(resources) -> dict:
    return decoded_constant(resources, "TAXONOMY_DEFAULTS", _decode)


def run(env, resources):
    if (skip := gate(SPEC, env, resources)) is not None:
        return skip
    c = Collector(SPEC, env)
    base = base_defaults(resources)
    seen = set()
    for a in env.filing.arcs:
        if a.arcrole != DIMENSION_DEFAULT or (a.source, a.target) in seen:
            continue
        seen.add((a.source, a.target))
        if not base_concept(a.source):
            continue
        hit = base.get(family_key(a.source))
        if hit is None:
            c.skipped(None, f"{a.source} has no default in the base taxonomy", concept=a.source)
        elif family_key(QName.from_clark(hit[1])) != family_key(a.target):
            network = env.role_definition(a.role) or a.role
            c.violation(CODE, None, concept=a.source, role=network, axis=a.source, base_default=QName.from_clark(hit[1]).local,
                        filer_default=a.target, network=network)
        else:
            c.consistent(None, concept=a.source)
    return c.result()


SPEC = register(RuleSpec(
    id=RULE, title="Axis with a default member that differs from the base taxonomy", messages={CODE: MESSAGE},
    needs=frozenset({Need.FILER_DEF, Need.TAXONOMY}), run=run, resources=(CONSTANTS_2025,),
))
