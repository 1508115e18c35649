"""The command line's exit codes, one table for every command (README, "Commands").

0: nothing found (``check``) or the fact is consistent (``audit``); 1: findings, or a violation;
2: an error (bad input, a model that cannot run, a bug); 3: ``audit`` only, the auditors could not
verify the fact (no checker applied to it).
"""
from __future__ import annotations

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_UNVERIFIED = 3
