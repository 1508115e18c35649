"""``python -m auditflow.cases > auditflow/cases/case-schema-v2.json``: regenerate the published schema."""
import sys

from auditflow.cases.schema import schema_json

sys.stdout.write(schema_json())
