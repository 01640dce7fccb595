"""The ``tapegen`` command line and its demo: trace a user's function, then show its
graph or write its gradient module through ``codegen``.
"""
