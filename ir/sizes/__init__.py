"""Symbolic sizes: dimensions known by expressions of named sizes, the shapes primitives
give them, and the guards a trace takes on them.
"""
