"""The typed action-observation interface over the dual graph: queries, tools, role tool sets, gating."""
