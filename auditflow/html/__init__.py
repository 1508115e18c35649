"""Self-contained HTML reports: the case suite (plugin and ``auditflow eval``) and a filer's check.

Jinja2 templates (``templates/``) with the styles and scripts of ``static/`` put inline, so a report
is one file that needs no server and makes no request. The output is a function of the results
alone (no time, no timing, no absolute path), so the same results give the same bytes.

Modules: :mod:`~auditflow.html.render` (the renderers; the only one importing Jinja2),
:mod:`~auditflow.html.payload` (what a case run hands the report), :mod:`~auditflow.html.views`
(suite), :mod:`~auditflow.html.check` (filer), :mod:`~auditflow.html.drawing` (the rule drawings).
"""
