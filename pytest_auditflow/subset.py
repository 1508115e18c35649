"""``--auditflow-subset N``: run only the stratified subset of N cases that ``auditflow eval`` runs for a
``+subset=N`` row, so a pytest run replays exactly what such a row recorded (issue 40: the 60 of
``cases/hard`` recorded over HTTP).

Each audit item is keyed the way eval keys its cases (``<file relative to the rootdir>::<case id>``,
:mod:`auditflow.eval.collect`), and the kept keys come from eval's own
:func:`auditflow.eval.runner.subset_cases`: drawn from the cases runnable here (a case that needs a data
root there is none of is left out, as eval leaves it out), stratified by :mod:`auditflow.eval.subset`.
The subset is drawn from every audit item collected, before ``-k`` and ``-m`` select among them, so the
same case files give the same subset whatever else is asked. Other items (Python tests, a case file
that does not load) are left alone; the others are deselected, so pytest's summary counts them.
"""
from __future__ import annotations

import pytest

from auditflow.eval.collect import KeyedCase
from auditflow.eval.runner import subset_cases
from pytest_auditflow.items import AuditCaseItem
from pytest_auditflow.session import AuditflowSession


def subset_key(state: AuditflowSession, item: AuditCaseItem) -> str:
    """The item's case as eval keys it."""
    return f"{state.display_path(item.path)}::{item.case.id}"


def deselect_outside_subset(state: AuditflowSession, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the audit items of the stratified subset of ``state.settings.subset`` cases (and every other
    item), in place; the audit items left out go to ``pytest_deselected``."""
    size = state.settings.subset
    keys = {item: subset_key(state, item) for item in items if isinstance(item, AuditCaseItem)}
    if size is None or not keys:
        return
    cases = [KeyedCase(key, item.case) for item, key in keys.items()]
    keep = {kc.key for kc in subset_cases(cases, size, data_root=state.settings.run.data_root)}
    kept, dropped = [], []
    for item in items:
        (dropped if item in keys and keys[item] not in keep else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
