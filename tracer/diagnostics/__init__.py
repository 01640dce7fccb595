"""What tapegen tells a user about their program: why a gradient is None
(``tape.explain``), values that escaped the trace, and which functions it covers.
"""
