"""``auditflow eval``: every configuration over a case corpus, the paper's metrics, and reports.

One module per job, so each piece can be tested and reused on its own:

* :mod:`~auditflow.eval.plan` - which configurations to run, each a protocol and a model spec;
* :mod:`~auditflow.eval.defaults` - the pytest ini the plugin reads, so eval replays the same cache;
* :mod:`~auditflow.eval.collect` - case files and folders to keyed cases (the plugin's node ids);
* :mod:`~auditflow.eval.runner` - runs every (configuration, case) pair, concurrently;
* :mod:`~auditflow.eval.records` - one case's deterministic result, apart from its wall-clock time;
* :mod:`~auditflow.eval.metrics` - Joint ACC, VAcc, per-rule ACC, SER/EER/CER, means;
* :mod:`~auditflow.bootstrap` - seeded paired bootstrap comparisons;
* :mod:`~auditflow.eval.report` - the report value and its JSON document;
* :mod:`~auditflow.eval.markdown`, :mod:`~auditflow.eval.workbook`, :mod:`~auditflow.eval.charts`,
  :mod:`~auditflow.eval.timings` - the renderings.

``results.md`` and ``results.json`` are pure functions of the report, which holds no wall-clock
time, cache counter or absolute path: re-running on the same cache reproduces them byte for byte.
Timings and cache counts go to ``run.json`` (and the workbook's ``timings`` sheet) instead.
"""
