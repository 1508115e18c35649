#!/usr/bin/env bash
# Run the AuditFlow cases the way the CI templates do, on any CI system or locally. Needs the plugin,
# installed from the AuditFlow repository (it is not on the package index), e.g.
#   pip install "pytest-auditflow[test] @ git+https://github.com/auditflow/auditflow@v0.1.0"
# and this script at ci/run-cases.sh of the repository.
#
#   ci/run-cases.sh                 # replay only, gated on cases/baseline.json when it exists
#   ci/run-cases.sh -k aapl         # extra arguments go to pytest
#
# Exit status: pytest's, except 5 ("no tests collected", e.g. a -k that matches no case) becomes 0.
# With a baseline, a failing case that is not in it fails the run (a new failure is a regression).
set -uo pipefail
cd "$(dirname "$0")/.."

args=(--auditflow cases/ -n "${AUDITFLOW_WORKERS:-auto}" --auditflow-record-mode=none
      --auditflow-json=auditflow-results.json --junitxml=auditflow-junit.xml)
if [ -f cases/baseline.json ]; then
  args+=(--auditflow-baseline=cases/baseline.json --auditflow-max-drop="${AUDITFLOW_MAX_DROP:-0}")
fi
python -m pytest "${args[@]}" "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "auditflow: no case selected" >&2
  exit 0
fi
exit "$status"
