"""Loops and branches in the IR: a body traced once, and how each pass (adjoint,
tangent, batching, optimisation, reach) goes through one.
"""
