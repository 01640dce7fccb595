"""Continuous distributions of ``tracer.scipy.stats``, one module each: densities,
distribution functions and their logs, as scipy.stats spells them.
"""
