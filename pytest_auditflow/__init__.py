"""pytest plugin for AuditFlow audit cases: ``pytest --auditflow cases/``.

Each case in a ``*.case.yaml`` file becomes a test item that runs the three-auditor protocol on one
fact of a filing and asserts the decision, triggered rules and values; a report breaks the results
down by DQC rule family and FinMR label. The engine (schema, inject, labels, runner) is
:mod:`auditflow.cases`; this package holds only the pytest side.
"""
