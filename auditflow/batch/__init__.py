"""Batch checks: ``auditflow check --batch`` over hundreds of filings on dask.distributed (docs/batch.md).

One task is one filing (:mod:`auditflow.batch.task`, the same function ``auditflow check`` runs per
filing); :mod:`auditflow.batch.sources` turns folders, zips, list files and globs into filings;
:mod:`auditflow.batch.output` streams one whole JSON line per filing and resumes by content hash;
:mod:`auditflow.batch.run` drives a local or remote dask cluster, or runs serially without dask.
dask and pyarrow are imported only where they are used: both are extras.
"""
