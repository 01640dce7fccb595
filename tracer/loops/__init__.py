"""Loops that stay loops and branches chosen at run time: ``scan``, ``fori_loop``,
``while_loop`` and ``cond``, their bodies traced once into graphs of their own.
"""
