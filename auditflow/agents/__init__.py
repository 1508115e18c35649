"""The three-auditor protocol: roles, Senior review, evidential fusion, configurations, policy backend."""
