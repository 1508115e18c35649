"""AuditFlow: verify XBRL filings the way an auditor would."""
__version__ = "0.1.0"
