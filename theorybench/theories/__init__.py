"""The theories: the framework and one module per theory, each deriving Easy/Hard verdicts.

``base`` holds the framework (Theory, Prediction, rules, statuses), ``registry`` the
theories in column order, ``runner`` the matrix of predictions and its tables. The theory
modules (``star_free``, ``ac0``, ``tc0``, ``crasp``, ``mpc``, ``bapo``, ``sensitivity``)
run the executable models of :mod:`theorybench.formal`; rule code two theories share lives
in ``_rules``. See ``docs/theories.md`` for what each theory's rules rest on.
"""
