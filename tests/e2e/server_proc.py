"""`mmkg serve` as a child process for the server suite: started on a free port (--port 0), its URL
read from the first line it prints, its stdout and stderr in files (a full pipe would block it),
stopped with SIGTERM. Also a Server-Sent Events reader for `requests` streams."""
import json
import os
import re
import signal
import subprocess
import time

from conftest import BIN

API_KEY = "test-key"


class Server:
    def __init__(self, store, logdir, *args, key=API_KEY, embedder="none", env=None, ready_timeout=180, llm="none"):
        self.store = store
        logdir.mkdir(parents=True, exist_ok=True)
        n = len(list(logdir.glob("serve-*.out")))
        self.out_path = logdir / f"serve-{n}.out"
        self.err_path = logdir / f"serve-{n}.err"
        e = dict(os.environ)
        for k in ("MMKG_STORE", "MMKG_API_KEY", "MMKG_CONFIG", "MMKG_LLM_BASE_URL"):
            e.pop(k, None)
        e["MMKG_EMBEDDER"] = embedder
        if key is not None:
            e["MMKG_API_KEY"] = key
        if env:
            e.update(env)
        cmd = [BIN, "serve", "--port", "0", "--store", str(store), "--llm", llm, *[str(a) for a in args]]
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=e)
        self.url = self._wait_ready(ready_timeout)

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.out_path.read_text(errors="replace")
            if "\n" in text:
                first = text.splitlines()[0]
                m = re.search(r"https?://[^\s\"]+", first)
                assert m, f"no URL in the first line: {first!r}\n{self.log()}"
                return m.group(0).rstrip("/")
            if self.proc.poll() is not None:
                raise AssertionError(f"mmkg serve exited with {self.proc.returncode} before serving\n{self.log()}")
            time.sleep(0.05)
        self.proc.kill()
        raise AssertionError(f"mmkg serve printed no URL within {timeout} s\n{self.log()}")

    def log(self):
        return "stdout: " + self.out_path.read_text(errors="replace")[-3000:] + \
            "\nstderr: " + self.err_path.read_text(errors="replace")[-6000:]

    def stop(self, timeout=60):
        """SIGTERM; returns the exit status (killing the server and failing when it hangs)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"mmkg serve did not exit within {timeout} s of SIGTERM\n{self.log()}")


def sse_events(resp):
    """(event, data) pairs of a text/event-stream response, as they arrive; `data` is parsed JSON
    when it is JSON (else the text). Events without a name are "message" (the OpenAI stream)."""
    buf = b""
    name, data = None, []
    for piece in resp.iter_content(chunk_size=None):
        buf += piece
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            line = raw.decode("utf-8").rstrip("\r")
            if line == "":
                if data:
                    text = "\n".join(data)
                    try:
                        value = json.loads(text)
                    except ValueError:
                        value = text
                    yield name or "message", value
                name, data = None, []
            elif line.startswith(":"):
                continue
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[6:] if line[5:6] == " " else line[5:])


def ndjson_lines(resp):
    buf = b""
    for piece in resp.iter_content(chunk_size=None):
        buf += piece
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            if raw.strip():
                yield json.loads(raw)
    if buf.strip():
        yield json.loads(buf)
