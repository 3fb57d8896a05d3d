"""The code's shape, kept by tests: no production function over 80 lines (lizard counts them;
unit tests are exempt), so that every function fits a screen."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_no_production_function_over_80_lines():
    r = subprocess.run([sys.executable, "-m", "lizard", "src", "-l", "cpp", "-x", "*_test.cc", "-L", "80",
                        "-C", "1000", "-w"], cwd=ROOT, capture_output=True, text=True)
    long = [l.split("src/", 1)[-1] for l in r.stdout.splitlines() if "warning:" in l]
    assert r.returncode == 0 and not long, "functions over 80 lines (split them into named steps):\n" + "\n".join(long)
    # lizard itself ran over the sources (a typo in its arguments must not pass silently).
    n = subprocess.run([sys.executable, "-m", "lizard", "src/core", "-l", "cpp"], cwd=ROOT, capture_output=True,
                       text=True)
    assert n.returncode == 0 and "Total nloc" in n.stdout, n.stdout[-400:]
