"""What the tests share: the installed mpdf package, the mpdf binary, a
served policy, a trained run and the example scripts.

The tests run against the INSTALLED package (``pip install ./python``), never the source tree beside them: an mpdf
imported from python/mpdf (the tests run from python/, or PYTHONPATH points
there), or an installed one whose files differ from python/mpdf (a stale
install), is an error, unless MPDF_TEST_SOURCE=1 says that testing the
source tree is meant.

The binary is $MPDF_BIN, or built once per test run with ``go build
./cmd/mpdf`` from the repository; without either the tests that need it
skip. With CI set, what would skip (no binary, no torch) fails instead.
"""

import atexit
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

import mpdf
from mpdf import Client

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SOURCE = os.path.join(REPO, "python", "mpdf")
EXAMPLES = os.path.join(REPO, "python", "examples")
CI = os.environ.get("CI", "") not in ("", "0", "false")


def _check_installed():
    """Refuses an mpdf that is not the installed copy of this tree's."""
    if os.environ.get("MPDF_TEST_SOURCE") == "1":
        return
    pkg = os.path.dirname(os.path.abspath(mpdf.__file__))
    reinstall = "install it: python3 -m pip install ./python (MPDF_TEST_SOURCE=1 tests the source)"
    if os.path.realpath(pkg) == os.path.realpath(SOURCE):
        raise ImportError("the tests import mpdf from the source tree %s, not the installed package: %s" % (pkg, reinstall))
    for name in sorted(os.listdir(SOURCE)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(SOURCE, name), "rb") as f:
            want = f.read()
        try:
            with open(os.path.join(pkg, name), "rb") as f:
                got = f.read()
        except FileNotFoundError:
            got = None
        if got != want:
            raise ImportError("the installed mpdf (%s) is not this tree's: %s differs from %s; %s"
                              % (pkg, name, os.path.join(SOURCE, name), reinstall))


_check_installed()

_tmp = None
_bin = None


def skip(why):
    """Skips a test, or fails it under CI, where everything must run."""
    if CI:
        raise AssertionError("CI: cannot skip: " + why)
    raise unittest.SkipTest(why)


def tmpdir():
    """A directory for the whole test run, removed at exit."""
    global _tmp
    if _tmp is None:
        _tmp = tempfile.mkdtemp(prefix="mpdf-py-")
        atexit.register(shutil.rmtree, _tmp, True)
    return _tmp


def mpdf_bin():
    """The mpdf binary: $MPDF_BIN, or built from the repository (once)."""
    global _bin
    if _bin is None:
        b = os.environ.get("MPDF_BIN")
        if not b:
            go = shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)
            if go is None:
                skip("no MPDF_BIN and no go to build mpdf")
            b = os.path.join(tmpdir(), "mpdf")
            subprocess.run([go, "build", "-o", b, "./cmd/mpdf"], cwd=REPO, check=True)
        _bin = b
    return _bin


def run_mpdf(*args):
    """Runs the mpdf CLI; a failure raises with its stderr."""
    p = subprocess.run([mpdf_bin()] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("mpdf %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


_runs = {}


def trained_run(features, *extra):
    """The directory of a small real ``mpdf train`` run on the simulator
    (trained once per test run for each arguments)."""
    key = (features,) + extra
    if key not in _runs:
        run = os.path.join(tmpdir(), "run-%d" % len(_runs))
        run_mpdf("train", "-q", "--out", run, "--seed", "3", "--features", features,
                 "--hidden", "32,32", "--sft-epochs", "2", "--tasks-per-iter", "6", "--episodes-per-task", "3",
                 "--batch-size", "32", "--update-epochs", "2", "--eval-tasks", "0", *extra)
        _runs[key] = run
    return _runs[key]


def load_example(name):
    """The module of python/examples/<name>.py (a script, not part of the
    package), loaded from its file."""
    spec = importlib.util.spec_from_file_location("example_" + name, os.path.join(EXAMPLES, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Served:
    """An ``mpdf serve`` process on a free loopback port."""

    def __init__(self, policy_path, *args):
        self.proc = subprocess.Popen([mpdf_bin(), "serve", "--policy", policy_path, "--addr", "127.0.0.1:0", "-q", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("mpdf serve: %r %s" % (line, self.proc.stderr.read()))
        self.url = line.split()[-1]
        self.client = Client(self.url)

    def stop(self):
        """SIGTERM, and the exit status of the graceful shutdown."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()
