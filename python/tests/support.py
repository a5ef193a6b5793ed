"""What the tests share: the mpdf binary and a served policy.

The binary is $MPDF_BIN, or built once per test run with ``go build
./cmd/mpdf`` from the repository; without either the tests that need it
skip.
"""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from mpdf import Client  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

_tmp = None
_bin = None


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
                raise unittest.SkipTest("no MPDF_BIN and no go to build mpdf")
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
