"""autograd 1.9.1's own test suite, run on tapegen through a stand-in ``autograd`` package.

    python benchmarks/autograd_suite.py [--mode eager|generated|both] [--autograd-src DIR]
                                        [--timeout SECONDS] [--json FILE] [--report FILE]

Gets autograd's test files (by default the autograd 1.9.1 sdist, fetched with
``pip download`` into a temporary directory and unpacked; or DIR, an unpacked
source tree), puts the shim package ``benchmarks/autograd_shim/autograd`` first
on ``sys.path`` of a pytest subprocess, and prints, for each mode, the tests
passed out of those counted, then the failures grouped by cause.  tapegen is
whatever ``import tracer`` finds: point ``PYTHONPATH`` at another tree (a git
worktree of an older commit) to measure that one with the same harness.

Modes.  ``eager``: the shim takes derivatives with tapes, forward
accumulators and ``tracer.hessian``/``tracer.hvp``.  ``generated``: every
top-level derivative comes from a module that ``codegen`` generates from the
tape (``gradient_source``, ``jacobian_source``, ``hessian_source``,
``hvp_source``), loaded and called on the values; derivatives nested inside
another are recorded eagerly on the outer tape, so the outermost module holds
them; forward-mode products are read off the generated VJP module (one call
per element of the result), generated code having no forward mode.

What is counted: every collected test, except the tests listed in
``EXCLUDED`` (autograd's internals, said why), the tests autograd's own
markers skip, and the tests that use no part of tapegen: they take no
derivative and call no ``tracer.scipy`` function, so they measure numpy (and
autograd's wrapper of it), not tapegen.  In generated mode the tests
whose derivative rule is user Python code (``autograd.extend.primitive``) are
not counted either: generated code refuses such rules by design.  The output
lists every test left out, with its reason.

A test gets ``--timeout`` seconds (default 120).  Both modes take about five
minutes on two cores.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict

VERSION = "1.9.1"
SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "autograd_shim")

EXCLUDED = {
    "tests/test_vspaces.py":
        "autograd's vector-space objects (the shim imitates them; no tapegen counterpart)",
    "tests/test_tests.py":
        "autograd's test of its own check_grads against wrong user rules",
    "tests/test_misc.py::test_const_graph":
        "autograd's cache of traced graphs: counts the calls the cache saves",
    "tests/test_misc.py::test_const_graph_args":
        "autograd's cache of traced graphs: counts the calls the cache saves",
    "tests/test_fft.py::test_rfftn_odd_not_implemented":
        "expects autograd's NotImplementedError for rfftn over an odd last axis, "
        "which tapegen differentiates",
}
SKIPPED = "skipped by autograd's own markers (a library the environment lacks)"
UNUSED = ("uses no part of tapegen (no derivative, no tracer.scipy function): measures numpy "
          "and autograd's wrapper of it")
USER_RULE = ("its derivative rule is user Python code (autograd.extend.primitive), which "
             "generated code refuses by design")


def fetch_sdist(scratch):
    """The unpacked autograd sdist, downloaded with pip into ``scratch``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", f"autograd=={VERSION}", "-d", scratch], check=True)
    (archive,) = glob.glob(os.path.join(scratch, f"autograd-{VERSION}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(scratch, filter="data")
    return os.path.join(scratch, f"autograd-{VERSION}")


def prepare_suite(source, scratch):
    """A copy of the source tree's tests under ``scratch`` with a plain pytest
    configuration (autograd's own asks for plugins the benchmark does not need)."""
    tests = os.path.join(source, "tests")
    if not os.path.isdir(tests):
        sys.exit(f"{source} has no tests directory: give --autograd-src an unpacked "
                 f"autograd {VERSION} source tree")
    version = _source_version(source)
    if version and version != VERSION:
        print(f"note: the source tree is autograd {version}, not {VERSION}")
    suite = os.path.join(scratch, "suite")
    shutil.copytree(tests, os.path.join(suite, "tests"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(suite, "pytest.ini"), "w", encoding="utf-8") as handle:
        handle.write("[pytest]\n")
    return suite


def _source_version(source):
    try:
        with open(os.path.join(source, "PKG-INFO"), encoding="utf-8") as handle:
            found = re.search(r"^Version: (\S+)", handle.read(), re.MULTILINE)
    except OSError:
        return None
    return found and found.group(1)


def _environment(mode, results, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SHIM, os.environ.get("PYTHONPATH")]))
    env.update(AUTOGRAD_SHIM_MODE=mode, AUTOGRAD_SUITE_RESULTS=results,
               AUTOGRAD_SUITE_TIMEOUT=str(timeout))
    return env


def describe_tapegen(scratch):
    """Which tapegen the subprocesses import (run from ``scratch``, as they are, so the
    working directory does not shadow ``PYTHONPATH``): its directory and git commit."""
    where = subprocess.run(
        [sys.executable, "-c", "import os, tracer; "
         "print(os.path.dirname(os.path.dirname(os.path.abspath(tracer.__file__))))"],
        cwd=scratch, env=_environment("eager", "", 0), capture_output=True, text=True,
        check=True).stdout.strip()
    git = ["git", "-C", where]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    changed = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"],
                             capture_output=True, text=True).stdout.strip()
    return f"{where} at commit {commit}" + (" with uncommitted changes" if changed else "")


def run_mode(suite, mode, timeout, scratch):
    """Run the suite once in ``mode``; the plugin's results, by test id."""
    results = os.path.join(scratch, f"{mode}.json")
    log = os.path.join(scratch, f"{mode}.log")
    command = [sys.executable, "-m", "pytest", "tests", "-q", "--tb=no", "-p", "no:cacheprovider",
               "-p", "autograd_suite_plugin"]
    with open(log, "w", encoding="utf-8") as output:
        completed = subprocess.run(command, cwd=suite, env=_environment(mode, results, timeout),
                                   stdout=output, stderr=subprocess.STDOUT)
    if completed.returncode not in (0, 1) or not os.path.exists(results):
        with open(log, encoding="utf-8") as handle:
            sys.exit(f"pytest stopped ({mode} mode, exit {completed.returncode}):\n"
                     + handle.read()[-4000:])
    with open(results, encoding="utf-8") as handle:
        return json.load(handle)


def exclusion(test, entry, mode):
    """Why ``test`` is not counted in ``mode``, or None if it is."""
    for prefix, reason in EXCLUDED.items():
        if test == prefix or test.startswith(prefix + "::"):
            return reason
    if entry["outcome"] == "skipped":
        return SKIPPED
    if not any(entry.get(use, 1) for use in ("derivatives", "tapegen_calls", "custom_rules")):
        return UNUSED
    if mode == "generated" and entry.get("custom_rules"):
        return USER_RULE
    return None


def tally(results, mode):
    """``(counted, excluded)``: the counted entries by test id, the excluded ids by reason."""
    counted, excluded = {}, defaultdict(list)
    for test, entry in sorted(results.items()):
        reason = exclusion(test, entry, mode)
        if reason is None:
            counted[test] = entry
        else:
            excluded[reason].append(test)
    return counted, excluded


def cause_of(entry):
    """A failure's cause, worded so that failures with one cause read alike: the error
    and its message, without locations, names and numbers that differ per test."""
    if entry["outcome"] == "collection error":
        return "the test file failed to import: " + _general(entry["error"].splitlines()[-1])
    error, message = entry.get("error", "?"), entry.get("message", "")
    if error == "AssertionError":
        cause = _wrong_value(entry.get("shim_calls", []))
    elif error == "Failed":
        cause = "pytest: " + _general(message)
    else:
        cause = f"{error}: {_general(message)}"
    if entry.get("tape_warning"):
        cause += "; tapegen warned: " + _general(entry["tape_warning"])[:160]
    return cause


def _wrong_value(shim_calls):
    """Which check found a wrong value: the frames of the shim's test_util say."""
    if "check_jvp" in shim_calls:
        return "wrong forward-mode derivative (check_grads, fwd)"
    if "check_vjp" in shim_calls:
        return "wrong reverse-mode derivative (check_grads, rev)"
    if "check_equivalent" in shim_calls:
        return "wrong value (check_equivalent in the test)"
    return "wrong value (the test's own assertion)"


def _general(text):
    text = re.sub(r"<tracer\.Tensor[^>]*>?", "<tensor>", text)
    text = re.sub(r" at [\w./<>-]+:\d+( \(in [\w<>]+\))?", "", text)
    text = re.sub(r"`[^`]*`", "`...`", text)
    text = re.sub(r"'[^']*'", "'...'", text)
    text = re.sub(r"\d+", "N", text)
    return text.strip()[:240]


def report_mode(mode, results, seconds):
    """Print one mode's count, what it left out, and its failures by cause."""
    counted, excluded = tally(results, mode)
    passed = sum(entry["outcome"] == "passed" for entry in counted.values())
    print(f"\n=== {mode}: {passed} / {len(counted)} passed "
          f"({len(results)} collected, {sum(map(len, excluded.values()))} not counted; "
          f"{seconds:.0f} s) ===")
    print("\nnot counted:")
    for reason, tests in excluded.items():
        print(f"  {len(tests):3d}  {reason}")
        for test in tests:
            print(f"         {test}")
    causes = defaultdict(list)
    for test, entry in counted.items():
        if entry["outcome"] != "passed":
            causes[cause_of(entry)].append(test)
    print(f"\nfailures by cause ({len(counted) - passed}):")
    for cause, tests in sorted(causes.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"  {len(tests):3d}  {cause}")
        for test in tests:
            entry = counted[test]
            where = entry.get("in_tapegen") or entry.get("in_test")
            print(f"         {test}" + (f"  [{where}]" if where else ""))
    return passed, len(counted)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("eager", "generated", "both"), default="both")
    parser.add_argument("--autograd-src", metavar="DIR",
                        help=f"an unpacked autograd {VERSION} source tree (default: pip download)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per test")
    parser.add_argument("--json", metavar="FILE", help="also write every test's result here")
    parser.add_argument("--report", metavar="FILE",
                        help="print the report of an earlier run's --json file, running nothing")
    args = parser.parse_args(argv)
    if args.report:
        with open(args.report, encoding="utf-8") as handle:
            saved = json.load(handle)
        print_table([(mode, *report_mode(mode, results["tests"], results["seconds"]))
                     for mode, results in saved.items()])
        return
    modes = ("eager", "generated") if args.mode == "both" else (args.mode,)
    rows, everything = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        print(f"autograd {VERSION}'s test suite on tapegen ({describe_tapegen(scratch)})")
        source = args.autograd_src or fetch_sdist(scratch)
        suite = prepare_suite(source, scratch)
        for mode in modes:
            start = time.perf_counter()
            results = run_mode(suite, mode, args.timeout, scratch)
            seconds = time.perf_counter() - start
            rows.append((mode, *report_mode(mode, results, seconds)))
            everything[mode] = {"seconds": seconds, "tests": results}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(everything, handle, indent=1, sort_keys=True)
    print_table(rows)


def print_table(rows):
    """The counts, as a Markdown table an issue note can quote."""
    print(f"\n| autograd {VERSION}'s tests on tapegen | passed / counted |\n| --- | --- |")
    for mode, passed, counted in rows:
        print(f"| {mode} | {passed} / {counted} |")


if __name__ == "__main__":
    main()
