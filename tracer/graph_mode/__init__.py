"""Graph mode: ``tracer.function`` traces a Python function, tapes and optimizer updates
included, into one ``ir.Graph`` per signature, and runs the module ``codegen`` writes
from it at every later call."""
