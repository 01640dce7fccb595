"""Optimisation passes over IR graphs: each small, sharing one rewriting machinery, all run
to a fixed point by ``ir.optimize.passes.optimize``.
"""
