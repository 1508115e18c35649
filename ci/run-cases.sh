#!/usr/bin/env bash
# Run the AuditFlow cases the way the CI templates do, on any CI system or locally.
#
#   ci/run-cases.sh                 # replay only, gated on cases/baseline.json when it exists
#   ci/run-cases.sh -k aapl         # extra arguments go to pytest
#
# Exit status: pytest's, except 5 ("no tests collected", e.g. a -k that matches no case) becomes 0.
set -uo pipefail
cd "$(dirname "$0")/.."

args=(--auditflow cases/ -n "${AUDITFLOW_WORKERS:-auto}" --auditflow-record-mode=none
      --auditflow-json=auditflow-results.json --junitxml=auditflow-junit.xml)
if [ -f cases/baseline.json ]; then
  args+=(--auditflow-baseline=cases/baseline.json --auditflow-max-drop="${AUDITFLOW_MAX_DROP:-0}")
fi
pytest "${args[@]}" "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "auditflow: no case selected" >&2
  exit 0
fi
exit "$status"
