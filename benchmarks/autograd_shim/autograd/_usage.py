"""What the running test asked of the shim, read by the suite's pytest plugin.

A test that takes no derivative and calls no ``tracer.scipy`` function uses no
part of tapegen: it measures numpy (or autograd's wrapper of it).  A
derivative whose rule is the user's Python code (``autograd.extend.primitive``)
has no generated-code counterpart.  The plugin resets these before each test.
"""

derivatives = 0
custom_rules = 0
tapegen_calls = 0


def reset():
    global derivatives, custom_rules, tapegen_calls
    derivatives = 0
    custom_rules = 0
    tapegen_calls = 0


def note_derivative():
    global derivatives
    derivatives += 1


def note_custom_rule():
    global custom_rules
    custom_rules += 1


def note_tapegen_call():
    global tapegen_calls
    tapegen_calls += 1
