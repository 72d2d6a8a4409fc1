"""The ``theorybench`` command: one module per command group, each thin.

Every module here that defines ``register(subparsers)`` adds its commands; ``main``
finds them, so a new command group is a new file.
"""
