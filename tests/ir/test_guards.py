"""Guards (``ir.sizes.guards``): a question about symbolic sizes is answered for the sizes
traced, and the answer is kept, once, as a condition later code can check."""

import pytest

from ir.sizes.dims import symbol
from ir.sizes.guards import current, decide, guarding

B, S = symbol("batch"), symbol("steps")


def test_questions_are_answered_at_the_traced_sizes_and_kept():
    with guarding({"batch": 32, "steps": 5}) as context:
        assert decide(B, ">", 10, "model.py:3") is True
        assert decide(B * S, "==", 160) is True
        assert decide(B % 2, "==", 1) is False
        assert decide(B, ">", 10, "model.py:3") is True  # asked again: kept once
        assert context.specialize(S + 1) == 6
    texts = [g.text() for g in context.guards]
    assert texts == ["batch > 10", "batch*steps == 160", "batch % 2 != 1", "steps + 1 == 6"]
    assert context.guards[0].where == "model.py:3"
    assert current() is None


def test_what_is_known_needs_no_guard():
    with guarding({"batch": 3}) as context:
        assert decide(B, "==", B) and decide(2 * B, ">=", B * 2) and decide(3, "<", 4)
        assert not decide(B + 1, "!=", 1 + B)
    assert context.guards == []


def test_guards_name_symbols_as_generated_code_does():
    with guarding({"batch": 8}) as context:
        decide(B // 2, "<", 5)
    assert context.guards[0].text(lambda name: f"n_{name}") == "n_batch // 2 < 5"


def test_without_traced_sizes_a_question_about_a_symbol_is_refused():
    with pytest.raises(TypeError, match="batch > 1.*reshape asks"):
        decide(B, ">", 1, "reshape")
    assert decide(4, ">", 1) is True


def test_contexts_nest_innermost_first():
    with guarding({"batch": 2}) as outer:
        with guarding({"batch": 9}) as inner:
            assert decide(B, ">", 5)
        assert not decide(B, ">", 5)
    assert len(outer.guards) == len(inner.guards) == 1


@pytest.mark.parametrize("question, known", [
    ((B, ">=", 1), True), ((B, ">", 0), True), ((B - 1, ">=", 0), True),
    ((B * S, ">=", B), True), ((B + 1, "==", 0), False), ((B, "<", 0), False),
    ((B // 2, ">=", 0), True), ((B, ">", 1), None), ((B, "==", S), None),
    ((2 * B, "!=", B), True),
])
def test_what_holds_at_every_size_needs_no_guard(question, known):
    """A symbolic size is at least 1: what follows from that alone is known."""
    from ir.sizes.guards import known_answer
    assert known_answer(*question) is known
