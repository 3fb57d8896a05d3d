"""CLI conventions: --help everywhere, exit codes, progress bar only on a terminal."""
import os
import pty
import select
import subprocess

import pytest

from conftest import BIN, CORPUS, run

COMMANDS = ["ingest", "search", "ask", "delete", "stats", "check", "eval", "graph", "mcp"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help(cmd):
    r = run(cmd, "--help")
    assert r.rc == 0, r
    assert "--json" in r.out and "--store" in r.out


def test_usage_errors_exit_2(store):
    assert run().rc == 2
    assert run("frobnicate").rc == 2
    r = run("search", store=store)
    assert r.rc == 2 and r.err.startswith("mmkg: error:")
    r = run("search", "x", store=store)  # no store yet
    assert r.rc == 2 and "mmkg ingest" in r.err


def test_progress_bar_on_tty_only(store):
    # Through a pipe: nothing on stderr.
    r = run("ingest", CORPUS, store=store)
    assert r.rc == 0 and r.err == ""
    # On a pseudo-terminal: a bar with files, pages/s and ETA.
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, "ingest", str(CORPUS), "--store", str(store) + "2"], stdin=slave, stdout=slave,
                         stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)  # hang guards only: a loaded machine is slow
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=600)
    os.close(master)
    text = out.decode("utf-8", "replace")
    assert p.returncode == 0
    assert "files" in text and "pages/s" in text and "ETA" in text, text
