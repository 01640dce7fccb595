"""Guards: questions about symbolic sizes, answered for the sizes traced.

Whether ``batch > 10`` depends on the sizes a program is called with.  While a
graph is traced with symbolic sizes, the sizes it is traced at (``hints``)
answer such a question, and the answer is kept as a ``Guard``: what is traced
holds only where every guard holds, so generated code checks them all on
entry, as torch.compile's guards do.  A shape rule asks through ``decide`` (or
fixes a size through ``Guarding.specialize``) in the innermost ``guarding``
context; with no context, a question about a symbolic size is an error.
"""

import contextlib
import operator
import threading
from dataclasses import dataclass

from ir.sizes.dims import Size, at_least
from ir.sizes.questions import ASKED, unknown_size

RELATIONS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
             ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class Guard:
    """A question about sizes answered while tracing, which the answer then depends on:
    ``left relation right`` was ``holds`` for the sizes traced.  ``where`` says what
    asked (the user's line, or the operation)."""

    left: object
    relation: str
    right: object
    holds: bool
    where: object = None

    def text(self, name=str):
        """The condition that held, as Python source (``batch % 2 == 0``)."""
        relation = self.relation if self.holds else _NEGATED[self.relation]
        return f"{_text(self.left, name)} {relation} {_text(self.right, name)}"


_NEGATED = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


class Guarding:
    """The sizes of the symbols being traced (``hints``) and the guards taken on them."""

    def __init__(self, hints):
        self.hints = dict(hints)
        self.guards = []

    def value(self, size):
        """The integer ``size`` is at the traced sizes."""
        return size.evaluate(self.hints) if isinstance(size, Size) else size

    def decide(self, left, relation, right, where=None):
        """Whether ``left relation right`` holds: known for integers and for equal
        expressions, else answered at the traced sizes and kept as a guard."""
        known = known_answer(left, relation, right)
        if known is not None:
            return known
        holds = RELATIONS[relation](self.value(left), self.value(right))
        self.note(Guard(left, relation, right, holds, where))
        return holds

    def note(self, guard):
        """Keep ``guard``, unless one with the same condition is kept already."""
        if all(_condition(g) != _condition(guard) for g in self.guards):
            self.guards.append(guard)

    def specialize(self, size, where=None):
        """``size`` fixed at its traced value (a guard that it keeps that value)."""
        value = self.value(size)
        self.decide(size, "==", value, where)
        return value


def known_answer(left, relation, right):
    """Whether ``left relation right`` holds at every size (each symbol at least 1), if
    that is known; else ``None``."""
    if relation in ("==", "!="):
        if left == right or not (isinstance(left, Size) or isinstance(right, Size)):
            return (left == right) == (relation == "==")
        if at_least(left - right, 1) or at_least(right - left, 1):
            return relation == "!="
        return None
    low, high = (left, right) if relation in ("<", "<=") else (right, left)
    margin = 1 if relation in ("<", ">") else 0
    if at_least(high - low, margin):
        return True
    if at_least(low - high, 1 - margin):
        return False
    return None


def _condition(guard):
    return guard.left, guard.relation, guard.right


_local = threading.local()


@contextlib.contextmanager
def guarding(hints):
    """Trace with the symbols at the sizes ``hints`` (or in a ``Guarding`` kept from
    before): the ``Guarding`` that questions about sizes (``decide``, ``specialize``)
    are answered by, innermost first."""
    stack = _local.__dict__.setdefault("stack", [])
    context = hints if isinstance(hints, Guarding) else Guarding(hints)
    stack.append(context)
    try:
        yield context
    finally:
        stack.pop()


def current():
    """The innermost ``Guarding``, or ``None`` when no symbols are being traced."""
    stack = _local.__dict__.get("stack")
    return stack[-1] if stack else None


def decide(left, relation, right, where=None):
    """``Guarding.decide`` in the innermost guarding; on integers alone, no guarding needed."""
    context = current()
    if context is None:
        if isinstance(left, Size) or isinstance(right, Size):
            raise unknown_size(f"whether {_text(left)} {relation} {_text(right)}: {where or 'it'}"
                           " asks, and", left if isinstance(left, Size) else right)
        return RELATIONS[relation](left, right)
    return context.decide(left, relation, right, where)


def _question(left, relation, right):
    """A question a ``Size`` is asked directly (``batch < 4`` in a rule): answered and
    guarded in the innermost guarding; ``None`` (an error) outside one."""
    context = current()
    return None if context is None else context.decide(left, relation, right)


def _value(size):
    context = current()
    return None if context is None else context.specialize(size, where="an integer was needed")


ASKED.question = _question
ASKED.value = _value


def _text(value, name=str):
    return value.text(name) if isinstance(value, Size) else str(value)
