"""Joins theory predictions with empirical outcomes: empirical verdicts, agreement, tables,
plots and the report."""
