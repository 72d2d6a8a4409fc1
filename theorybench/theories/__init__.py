"""The theories: the framework and one module per theory, each deriving Easy/Hard verdicts.

``base`` holds the framework (the Theory class; ``prediction`` its data: Prediction,
rules, statuses, Context), ``closures`` the catalogue rule, ``universe`` the matrix's
default rows, ``registry`` the theories in column order, ``runner`` the matrix of
predictions and its tables. A task is a :class:`~theorybench.tasks.TaskRef` value
(``khop:k=2``); the runner hands it and the rows a rule may consult to each theory. The theory
modules (``star_free``, ``ac0``, ``tc0``, ``crasp``, ``mpc``, ``bapo``, ``sensitivity``)
run the executable models of :mod:`theorybench.formal`; rule code two theories share lives
in ``rules``. See ``docs/theories.md`` for what each theory's rules rest on.
"""
