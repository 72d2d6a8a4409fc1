"""Searches for formal objects that agree with a task: each result is checked before use.

:mod:`.reductions` finds letter and position maps between a task and the rows of a matrix
(issue 29, item 3). Each submodule is imported on its own; this package imports none of
them, so that a search is loaded only where it is used.
"""
