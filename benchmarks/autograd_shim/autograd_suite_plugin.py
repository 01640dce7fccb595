"""pytest plugin of the autograd suite benchmark: a time limit per test, and each
test's outcome, with the cause of a failure, the first warning tapegen gave and
what the test asked of the shim, written as JSON for ``benchmarks/autograd_suite.py``.

Environment: ``AUTOGRAD_SUITE_RESULTS`` (the JSON file to write) and
``AUTOGRAD_SUITE_TIMEOUT`` (seconds per test; 0 for no limit).
"""

import json
import os
import signal
import traceback
import warnings

import pytest

TAPEGEN_PACKAGES = ("tracer", "ir", "codegen")
results = {}
tape_warnings = []


class TestTimeout(Exception):
    """The test ran past the benchmark's time limit."""


def _limit():
    return float(os.environ.get("AUTOGRAD_SUITE_TIMEOUT", "0"))


def _on_alarm(signum, frame):
    raise TestTimeout(f"the test ran longer than {_limit():g} s")


def _usage():
    from autograd import _usage
    return _usage


def pytest_runtest_setup(item):
    _usage().reset()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Run the test under the time limit, keeping the warnings tapegen gave."""
    if _limit():
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _limit())
    tape_warnings.clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    tape_warnings.extend(str(w.message) for w in caught
                         if w.category.__name__ == "GradientTapeWarning")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    entry = results.setdefault(report.nodeid, {"outcome": "passed"})
    if report.failed and entry["outcome"] != "failed":
        entry.update(outcome="failed", phase=call.when, **cause(call.excinfo))
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"
    if call.when == "call":
        usage = _usage()
        entry.update(derivatives=usage.derivatives, custom_rules=usage.custom_rules,
                     tapegen_calls=usage.tapegen_calls)
        if tape_warnings:
            entry["tape_warning"] = tape_warnings[0][:400]


def pytest_collectreport(report):
    if report.failed:
        results[report.nodeid] = {"outcome": "collection error", "error": str(report.longrepr)}


def pytest_sessionfinish(session):
    path = os.environ.get("AUTOGRAD_SUITE_RESULTS")
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, sort_keys=True)


def cause(excinfo):
    """What failed and where: the exception, the innermost frame in tapegen, in the
    shim and in the test, and the last lines of the traceback."""
    frames = traceback.extract_tb(excinfo.tb)
    found = {"error": excinfo.typename,
             "message": " ".join(str(excinfo.value).split())[:400],
             "traceback": "".join(traceback.format_list(frames[-6:]))}
    for frame in frames:
        found[_kind(frame.filename)] = f"{_short(frame.filename)}:{frame.lineno} {frame.name}"
    found["shim_calls"] = [f.name for f in frames if _kind(f.filename) == "in_shim"]
    return found


def _kind(filename):
    parts = filename.replace(os.sep, "/").split("/")
    if "autograd_shim" in parts:
        return "in_shim"
    if any(part in TAPEGEN_PACKAGES for part in parts[-4:-1]):
        return "in_tapegen"
    if parts[-1].startswith("test_") or parts[-1] == "numpy_utils.py":
        return "in_test"
    return "in_library"


def _short(filename):
    return "/".join(filename.replace(os.sep, "/").split("/")[-2:])
