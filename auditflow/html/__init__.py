"""Self-contained HTML reports: the case suite (plugin and ``auditflow eval``) and a filer's check.

Jinja2 templates (``templates/``) with the styles and scripts of ``static/`` put inline, so a report
is one file that needs no server and makes no request. The output is a function of the results
alone (no time, no timing, no absolute path), so the same results give the same bytes.

Modules: one per page, :mod:`~auditflow.html.suite_page` (the case suite, with
:mod:`~auditflow.html.payload`, what a case run hands it) and :mod:`~auditflow.html.check_page` (the
filer's check, whose fix hints come from the rule entries); :mod:`~auditflow.html.drawing` (the rule
drawings, by each rule entry's drawing kind); :mod:`~auditflow.html.render` (the Jinja2 environment
and the file writer; the only module importing Jinja2).
"""
