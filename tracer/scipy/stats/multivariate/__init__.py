"""Multivariate distributions of ``tracer.scipy.stats``: densities of vectors (``dirichlet``,
``multinomial``, ``multivariate_normal``), with scipy's shapes and refusals.
"""
