"""Discrete distributions of ``tracer.scipy.stats``, one module each: probability mass
functions, distribution functions and their logs, differentiable in their parameters.
"""
