"""Graphs as JSON: the versioned document, its field checks, and how values and symbolic
sizes are written in it.
"""
