"""How a symbolic size (``ir.sizes.dims.Size``) answers questions and is written as code.

A ``Size`` never answers a question about its value by itself: ``ir.sizes.guards``
sets ``ASKED`` so that, inside a guarding, the question is answered at the
traced sizes and kept as a guard, and outside one it is an error.  While
generated code is spelled (``spelled_as``), a size's ``repr`` is the code that
computes it.
"""

import contextlib
import threading


class _Asked:
    """How questions about sizes are answered: ``ir.sizes.guards`` sets ``question`` and
    ``value`` (answered at the traced sizes, each a guard, in its innermost guarding)."""

    question = None
    value = None


class _Spelling(threading.local):
    code_name = None  # (set while generated code is spelled)


ASKED = _Asked()
SPELLING = _Spelling()


def asked(size, relation, other, what):
    """The answer to ``size relation other``, where a guarding can give one."""
    answer = ASKED.question(size, relation, other) if ASKED.question else None
    if answer is None:
        raise unknown_size(what, size)
    return answer


@contextlib.contextmanager
def spelled_as(code_name):
    """Within, a size's ``repr`` is code: each symbol written as ``code_name(symbol)``."""
    previous, SPELLING.code_name = SPELLING.code_name, code_name
    try:
        yield
    finally:
        SPELLING.code_name = previous


def unknown_size(what, size):
    return TypeError(
        f"{what} the symbolic size {size} is not known while tracing: it depends on the "
        "sizes the code will be called with (ask through ir.sizes.guards.decide, which answers "
        "for the sizes traced and keeps a guard)")
