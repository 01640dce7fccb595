"""Symbolic sizes in traced code: the axes a user declares symbolic, how the tracing
core meets them, and what a recording knows of them.
"""
