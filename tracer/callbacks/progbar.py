"""``Progbar``: Keras' progress bar, character for character.

``verbose=1`` redraws one line in place (backspaces and a carriage return) where the
output can be redrawn: a terminal, a notebook, any POSIX system, PyCharm, by the
same test as Keras; elsewhere each update starts a new line.  ``verbose=2`` prints
one line when the bar is finished.
"""

import math
import os
import sys
import time

import numpy as np

from tracer.callbacks.messages import print_msg

_BOLD, _GREEN, _GREY, _RESET = "\x1b[1m", "\x1b[32m", "\x1b[37m", "\x1b[0m"


def _supports_dynamic_display():
    """Keras' test for output that can be redrawn in place."""
    return ((hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "posix" in sys.modules
            or "PYCHARM_HOSTED" in os.environ)


def format_time(time_per_unit, unit_name):
    """`` 3ms/step``: seconds, milliseconds or microseconds per unit, rounded."""
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1000.0:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1000000.0:.0f}us/{unit_name}"


def format_value(value, small):
    """Four decimals, or scientific notation when ``small`` (Keras: ``|value| <= 1e-3``
    on the live bar, ``value <= 1e-3`` on the one-line summary)."""
    return f" {value:.4e}" if small else f" {value:.4f}"


def _format_eta(eta):
    if eta > 3600:
        return "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
    if eta > 60:
        return "%d:%02d" % (eta // 60, eta % 60)
    return "%ds" % eta


class Progbar:
    """A progress bar over ``target`` steps (``None`` if unknown).

    Metrics named in ``stateful_metrics`` are shown as given; the others are averaged
    over the steps seen (weighted by the steps each update covers).  Give
    ``stateless_metrics`` instead to average only those.  ``interval`` is the least
    time, in seconds, between two redraws of the live bar.
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None,
                 stateless_metrics=None, unit_name="step"):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Only one of `stateful_metrics` or `stateless_metrics` can be provided: "
                "`stateful_metrics` lists the metrics shown as given (all others are "
                "averaged), `stateless_metrics` lists the metrics averaged (all others "
                "are shown as given).")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = None if stateless_metrics is not None else set(
            stateful_metrics or ())
        self.stateless_metrics = None if stateless_metrics is None else set(stateless_metrics)
        self._dynamic_display = _supports_dynamic_display()
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def update(self, current, values=None, finalize=None):
        """Show step ``current``; ``values`` is a list of ``(name, value)`` for this step.
        ``finalize`` (default: ``current >= target``) marks the last update."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        self._record(current, values or [], finalize)
        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._print_live(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize and self._has_target():
            self._print_summary(current, now, time_per_unit)
        self._last_update = now

    def add(self, n, values=None):
        """Advance by ``n`` steps."""
        self.update(self._seen_so_far + n, values)

    # --- the values ---------------------------------------------------------------

    def _averaged(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def _record(self, current, values, finalize):
        for name, value in values:
            if name not in self._values_order:
                self._values_order.append(name)
            if not self._averaged(name) or finalize:
                self._values[name] = [value, 1]
                continue
            steps = max(current - self._seen_so_far, 1)
            if name in self._values:
                self._values[name][0] += value * steps
                self._values[name][1] += steps
            else:
                self._values[name] = [value * steps, steps]
        self._seen_so_far = current

    def _average(self, name):
        total, count = self._values[name]
        if not isinstance(total, float):
            total = np.mean(total)
        return total / max(1, count)

    def _estimate_step_duration(self, current, now):
        """Seconds per step, leaving out the first step (it compiles) once there are
        more; 0 before any step."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit

    # --- the output ---------------------------------------------------------------

    def _has_target(self):
        return self.target is not None and self.target > 0

    def _counter(self, current):
        digits = int(math.log10(self.target)) + 1
        return f"%{digits}d/%d" % (current, self.target)

    def _bar(self, current):
        """The counter and the bar, and how many of their characters are escapes."""
        if not self._has_target():
            return "%7d/Unknown" % current, 0
        bar, hidden = f"{_BOLD}{self._counter(current)}{_RESET} ", 8
        done = int(self.width * (float(current) / self.target))
        if done > 0:
            bar, hidden = bar + f"{_GREEN}{'━' * done}{_RESET}", hidden + 9
        return bar + f"{_GREY}{'━' * (self.width - done)}{_RESET}", hidden + 9

    def _print_live(self, current, now, time_per_unit, finalize):
        message = "\b" * self._prev_total_width + "\r" if self._dynamic_display else "\n"
        bar, hidden = self._bar(current)
        if self._has_target() and not finalize:
            clock = _format_eta(time_per_unit * (self.target - current))
        else:
            clock = f"{now - self._start:.0f}s"
        info = f" {_BOLD}{clock}{_RESET}" + format_time(time_per_unit, self.unit_name)
        for name in self._values_order:
            average = self._average(name)
            info += f" - {name}:" + format_value(average, small=not abs(average) > 1e-3)
        total_width = len(bar) + len(info) - hidden - 8
        message += bar + info + " " * max(self._prev_total_width - total_width, 0)
        print_msg(message + ("\n" if finalize else ""), line_break=False)
        self._prev_total_width = total_width

    def _print_summary(self, current, now, time_per_unit):
        info = f"{self._counter(current)} - {now - self._start:.0f}s"
        info += " -" + format_time(time_per_unit, self.unit_name)
        for name in self._values_order:
            average = self._average(name)
            info += f" - {name}:" + format_value(average, small=not average > 1e-3)
        print_msg(info + "\n", line_break=False)
