"""Puts ``tests/`` on the import path, so test modules share ``gradient_table``."""
