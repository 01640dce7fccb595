"""Differentiation and batching as IR-to-IR passes: the adjoint (reverse mode), the
tangent pass (forward mode), and every primitive applied along a batch axis.
"""
