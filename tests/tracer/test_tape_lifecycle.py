"""A tape's life: entering and leaving, stop_recording, reset, one-shot and
persistent use, gradients asked for inside the context, threads, and freeing
what a non-persistent tape held."""

import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import tracer
from tracer import GradientTape
from tracer.state import active_recordings


def scalar(value):
    return tracer.constant(value)


# --- entering and leaving ----------------------------------------------------

def test_enter_returns_the_tape_itself():
    tape = GradientTape()
    with tape as entered:
        assert entered is tape


def test_re_entering_after_exit_continues_the_same_recording():
    x = tracer.constant([1.0])
    tape = GradientTape()
    with tape:
        tape.watch(x)
        y = 2 * x
    with tape:
        z = 2 * y
    np.testing.assert_allclose(tape.gradient(z, x), [4.0])


def test_re_entering_an_active_tape_is_an_error_of_both_tensorflow_classes():
    tape = GradientTape()
    with tape:
        with pytest.raises(tracer.TapeStateError, match="still recording"):
            with tape:
                pass
    assert issubclass(tracer.TapeStateError, ValueError)
    assert issubclass(tracer.TapeStateError, RuntimeError)


def test_an_exception_in_the_block_propagates_and_the_recording_stays_usable():
    x = scalar(3.0)
    tape = GradientTape()
    with pytest.raises(KeyError):
        with tape:
            tape.watch(x)
            y = x * x
            raise KeyError("boom")
    z = x * x
    assert tape.gradient(y, x) == 6.0
    with GradientTape() as later:
        later.watch(x)
        w = z * x
    assert later.gradient(w, x) == 9.0, "the failed block must not leave its tape on the stack"


def test_ops_outside_the_context_are_not_recorded():
    x = scalar(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    z = y * x
    assert tape.gradient(y, x) == 4.0
    with GradientTape() as second:
        second.watch(x)
    assert second.gradient(z, x) is None


def test_watch_before_entering_takes_effect_when_the_tape_is_entered():
    # TensorFlow fails here with an accidental AttributeError; the intent is plain.
    x = scalar(3.0)
    tape = GradientTape()
    tape.watch(x)
    with tape:
        y = x * x
    assert tape.gradient(y, x) == 6.0


def test_watch_after_exit_only_affects_later_recording():
    x = scalar(3.0)
    with GradientTape(persistent=True) as tape:
        y = x * x
    tape.watch(x)
    assert tape.gradient(y, x) is None
    assert tape.gradient(x, x) == 1.0
    with tape:
        z = x * x
    assert tape.gradient(z, x) == 6.0


# --- one-shot and persistent --------------------------------------------------

@pytest.mark.parametrize("second_call", ["gradient", "jacobian", "batch_jacobian"])
@pytest.mark.parametrize("first_call", ["gradient", "jacobian", "batch_jacobian"])
def test_a_non_persistent_tape_answers_once(first_call, second_call):
    x = tracer.constant([[1.0, 2.0]])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    getattr(tape, first_call)(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape can only be used to "
                                           "compute one set of gradients") as info:
        getattr(tape, second_call)(y, x)
    assert "persistent=True" in str(info.value)
    assert isinstance(info.value, tracer.TapeStateError)


def test_a_persistent_tape_answers_any_number_of_times():
    x = scalar(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x) == 108.0
    assert tape.gradient(y, x) == 6.0
    assert tape.gradient(z, y) == 18.0
    assert tape.gradient(z, x) == 108.0
    assert tape.jacobian(z, x) == 108.0


def test_gradient_on_a_tape_that_never_recorded_says_so():
    x = scalar(1.0)
    with pytest.raises(tracer.TapeStateError, match="has not recorded anything"):
        GradientTape().gradient(x, x)


def test_a_consumed_tape_can_be_entered_again_for_a_fresh_recording():
    x = scalar(2.0)
    tape = GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x) == 4.0
    with tape:
        tape.watch(x)
        z = x * x * x
    assert tape.gradient(z, x) == 12.0


# --- stop_recording -----------------------------------------------------------

def test_stop_recording_makes_results_constants():
    x = scalar(2.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x * x
        z = x * x
        w = x * y
    assert tape.gradient(y, x) is None
    assert tape.gradient(z, x) == 4.0
    assert tape.gradient(w, x) == 4.0  # = y, y itself being a constant


def test_stop_recording_pauses_only_its_own_tape():
    x = scalar(2.0)
    with GradientTape() as outer:
        outer.watch(x)
        with GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
    assert outer.gradient(y, x) == 4.0
    assert inner.gradient(y, x) is None


def test_stop_recording_outside_the_context_is_an_error():
    never_entered = GradientTape()
    with pytest.raises(RuntimeError, match="not recording"):
        with never_entered.stop_recording():
            pass
    exited = GradientTape()
    with exited:
        pass
    with pytest.raises(ValueError, match="not recording"):
        with exited.stop_recording():
            pass


def test_nested_stop_recording_is_an_error():
    with GradientTape() as tape:
        with tape.stop_recording():
            with pytest.raises(tracer.TapeStateError, match="stop_recording"):
                with tape.stop_recording():
                    pass


def test_gradient_inside_stop_recording_consumes_the_tape_cleanly():
    x = scalar(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            assert tape.gradient(y, x) == 4.0
        z = x * 3.0
    assert z == 6.0
    with GradientTape() as later:
        later.watch(x)
        w = x * x
    assert later.gradient(w, x) == 4.0


# --- reset --------------------------------------------------------------------

def test_reset_forgets_records_and_watched_variables():
    v = tracer.Variable(1.0)
    with GradientTape() as tape:
        y = v * v
        assert len(tape.watched_variables()) == 1
        tape.reset()
        assert len(tape.watched_variables()) == 0
        z = y + v * v
        assert len(tape.watched_variables()) == 1
    assert tape.gradient(z, v) == 2.0


def test_reset_unwatches_tensors():
    x = scalar(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        z = y * x
    assert tape.gradient(z, x) is None
    with tape:
        tape.reset()
        tape.watch(x)
        z = y * x
    assert tape.gradient(z, x) == 9.0


def test_reset_outside_the_context_is_an_error():
    tape = GradientTape()
    with tape:
        pass
    with pytest.raises(ValueError, match="reset"):
        tape.reset()


# --- gradient inside the context ---------------------------------------------

def test_non_persistent_gradient_inside_the_context_stops_recording_silently():
    x = scalar(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with GradientTape() as tape:
            tape.watch(x)
            y = x * x
            assert tape.gradient(y, x) == 6.0
            after = x * x
    assert after == 9.0
    with pytest.raises(RuntimeError, match="one set of gradients"):
        tape.gradient(after, x)


def test_persistent_gradient_inside_the_context_warns_at_the_callers_line():
    x = scalar(3.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        with pytest.warns(tracer.GradientTapeWarning, match="inside its context") as record:
            dy = tape.gradient(y, x)
    assert dy == 27.0
    assert record[0].filename == __file__
    assert tape.gradient(dy, x) == 18.0


def test_persistent_jacobian_inside_the_context_warns_too():
    x = tracer.constant([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with pytest.warns(tracer.GradientTapeWarning):
            j = tape.jacobian(y, x)
    np.testing.assert_allclose(j, np.diag([2.0, 4.0]))


# --- threads and memory -------------------------------------------------------

def test_a_tape_does_not_record_another_threads_ops():
    x = scalar(2.0)
    results = {}
    started = threading.Event()
    proceed = threading.Event()

    def other_thread():
        started.set()
        proceed.wait(5)
        results["y"] = x * x

    worker = threading.Thread(target=other_thread)
    worker.start()
    with GradientTape() as tape:
        tape.watch(x)
        started.wait(5)
        proceed.set()
        worker.join(5)
        mine = x * 3.0
    ops = [n for n in tape.graph if n.kind == "op"]
    assert [n.op for n in ops] == ["multiply"]
    assert results["y"] == 4.0
    assert tape.gradient([results["y"], mine], x) == 3.0


def test_each_thread_has_its_own_stack():
    x = scalar(2.0)
    seen = {}

    def worker():
        with GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        seen["grad"] = tape.gradient(y, x)

    with GradientTape() as main_tape:
        main_tape.watch(x)
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join(5)
        z = x * x
    assert seen["grad"] == 12.0
    assert main_tape.gradient(z, x) == 4.0


def _intermediate_value(tape):
    """A weak reference to the array of the first recorded op's output."""
    return weakref.ref(tape._recording.records[0].out._value)


def test_a_non_persistent_tape_frees_its_records_after_gradient():
    x = tracer.constant(np.linspace(0.0, 1.0, 1000))
    with GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(np.sin(x) * 3.0)
    intermediate = _intermediate_value(tape)
    tape.gradient(loss, x)
    gc.collect()
    assert intermediate() is None


def test_a_persistent_tape_keeps_its_records_until_dropped():
    x = tracer.constant(np.linspace(0.0, 1.0, 1000))
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss = np.sum(np.sin(x) * 3.0)
    intermediate = _intermediate_value(tape)
    tape.gradient(loss, x)
    gc.collect()
    assert intermediate() is not None
    del tape
    gc.collect()
    assert intermediate() is None


def test_watch_does_not_revive_a_consumed_tape():
    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(tracer.TapeStateError, match="enter it again"):
        tape.watch(x)
    with pytest.raises(tracer.TapeStateError):
        tape.gradient(y, x)


def test_stop_recording_puts_the_tape_back_where_it_was_on_the_stack():
    x = tracer.constant(2.0)
    with GradientTape() as outer, GradientTape() as inner:
        outer.watch(x)
        inner.watch(x)
        before = list(active_recordings())
        with outer.stop_recording():
            pass
        assert list(active_recordings()) == before
