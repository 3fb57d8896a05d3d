#!/usr/bin/env python3
"""Load on `mmkg serve` over loopback, side by side with one `mmkg search` process per query.

Measures (docs/BENCHMARKS.md, "HTTP server"):
  1. search: requests/s and p50/p99 latency at 1, 8 and 64 connections with wrk (Debian), the
     same questions rotated by a Lua script; against the same questions run as one
     `mmkg search` process each, one after another (what a client without the server pays);
  2. ask: time from the request to the first streamed step, and to the answer (SSE);
  3. a mixed run: concurrent asks and searches while documents are uploaded and deleted; every
     response is counted by status; afterwards the document list must hold exactly what was
     uploaded and not deleted, and `mmkg check` must pass.

Usage: bench/server_load.py [--bin build/mmkg] [--corpus examples/corpus] [--duration 10]
                             [--json bench/results/server-load-TIMESTAMP.json]
"""
import argparse
import concurrent.futures as cf
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import benchutil

ROOT = pathlib.Path(__file__).resolve().parents[1]
QA = ROOT.parent / "shared" / "eval" / "dev_qa.jsonl"
FALLBACK = ["what is attention?", "what is multi-head attention?", "how does self-attention scale with length?",
            "what is cross-attention used for?", "who introduced the transformer?"]


def questions():
    if QA.exists():
        qs = [json.loads(l)["question"] for l in QA.read_text().splitlines() if l.strip()]
        if qs:
            return qs
    return FALLBACK


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


class Server:
    def __init__(self, binary, store, env, *args):
        self.p = subprocess.Popen([binary, "serve", "--port", "0", "--store", str(store), "--quiet", *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        line = self.p.stdout.readline()
        if " on " not in line:
            raise SystemExit("server did not start: " + line)
        self.url = line.strip().split(" on ")[-1]

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        return self.p.wait(timeout=120)


def http(method, url, body=None, headers=None, timeout=300):
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if isinstance(body, dict):
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def multipart(files):
    boundary = "mmkgbench%d" % time.time_ns()
    out = b""
    for name, data in files:
        out += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                "Content-Type: application/octet-stream\r\n\r\n").encode() + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def upload(url, key, files):
    body, ctype = multipart(files)
    st, b = http("POST", url + "/api/documents", body, {"Content-Type": ctype, "X-API-Key": key})
    if st != 202:
        raise RuntimeError(f"upload: {st} {b[:200]}")
    job = json.loads(b)["job"]["id"]
    while True:
        st, b = http("GET", f"{url}/api/jobs/{job}")
        j = json.loads(b)
        if j["state"] in ("done", "failed"):
            return j
        time.sleep(0.2)


def wrk(url, conns, duration, qs, workdir):
    lua = workdir / "search.lua"
    quoted = ",".join(json.dumps("/api/search?k=10&q=" + urllib.parse.quote(q)) for q in qs)
    lua.write_text("local paths = {" + quoted + "}\nlocal i = 0\n"
                   "request = function()\n  i = i + 1\n  return wrk.format('GET', paths[(i % #paths) + 1])\nend\n"
                   "done = function(summary, latency, requests)\n"
                   "  io.write(string.format('JSON {\"requests\":%d,\"errors\":%d,\"non2xx\":%d,\"p50_ms\":%.3f,"
                   "\"p99_ms\":%.3f,\"seconds\":%.3f}\\n', summary.requests, summary.errors.connect + "
                   "summary.errors.read + summary.errors.write + summary.errors.timeout, summary.errors.status, "
                   "latency:percentile(50)/1000, latency:percentile(99)/1000, summary.duration/1e6))\nend\n")
    threads = min(conns, 2)
    r = subprocess.run(["wrk", "-t", str(threads), "-c", str(conns), "-d", f"{duration}s", "--timeout", "30s",
                        "-s", str(lua), url], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("JSON "):
            d = json.loads(line[5:])
            d["rps"] = d["requests"] / d["seconds"]
            d["connections"] = conns
            return d
    raise RuntimeError("wrk gave no result: " + r.stdout + r.stderr)


def cli_searches(binary, store, env, qs):
    lat = []
    for q in qs:
        t0 = time.perf_counter()
        subprocess.run([binary, "search", q, "--store", str(store), "--json"], capture_output=True, env=env, check=True)
        lat.append((time.perf_counter() - t0) * 1000)
    return {"requests": len(lat), "rps": len(lat) / (sum(lat) / 1000), "p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99)}


def ask_stream(url, question):
    req = urllib.request.Request(url + "/api/ask", data=json.dumps({"question": question, "stream": True}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    t0 = time.perf_counter()
    first = None
    with urllib.request.urlopen(req, timeout=300) as r:
        for raw in r:
            line = raw.decode()
            if line.startswith("event: step") and first is None:
                first = (time.perf_counter() - t0) * 1000
            if line.startswith("event: answer"):
                return first, (time.perf_counter() - t0) * 1000
    raise RuntimeError("no answer event")


def mixed(url, key, corpus, qs, rounds):
    """Asks and searches on 4 threads while documents are uploaded and deleted on another."""
    statuses = {}
    stop = [False]

    def reader(i):
        n = 0
        while not stop[0]:
            q = qs[(i + n) % len(qs)]
            if n % 3 == 0:
                st, _ = http("POST", url + "/api/ask", {"question": q})
            else:
                st, _ = http("GET", url + "/api/search?k=5&q=" + urllib.parse.quote(q))
            statuses[st] = statuses.get(st, 0) + 1
            n += 1

    files = sorted(p for p in corpus.iterdir() if p.is_file())
    expected = set()
    with cf.ThreadPoolExecutor(5) as ex:
        futs = [ex.submit(reader, i) for i in range(4)]
        for r in range(rounds):
            batch = [(f"mixed{r}_{p.name}", p.read_bytes() + f"\n\nRound {r}.\n".encode()) for p in files]
            j = upload(url, key, batch)
            if j["state"] != "done":
                raise RuntimeError(f"job failed: {j}")
            expected |= {n for n, _ in batch}
            if r % 2 == 1:  # delete the previous round's documents
                for n, _ in [(f"mixed{r-1}_{p.name}", None) for p in files]:
                    st, b = http("DELETE", f"{url}/api/documents/{urllib.parse.quote(n)}", headers={"X-API-Key": key})
                    statuses[("delete", st)] = statuses.get(("delete", st), 0) + 1
                    expected.discard(n)
        stop[0] = True
        for f in futs:
            f.result()
    st, b = http("GET", url + "/api/documents")
    have = {d["doc"] for d in json.loads(b)["documents"] if d["doc"].startswith("mixed")}
    return {"statuses": {str(k): v for k, v in statuses.items()}, "expected_docs": len(expected),
            "listed_docs": len(have), "lost": sorted(expected - have), "extra": sorted(have - expected)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "build" / "mmkg"))
    ap.add_argument("--corpus", default=str(ROOT / "examples" / "corpus"))
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", default=str(ROOT / "bench" / "results" /
                                          time.strftime("server-load-%Y%m%dT%H%M%SZ.json", time.gmtime())))
    a = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: make setup installs it")
    work = pathlib.Path(tempfile.mkdtemp(prefix="mmkg-load-"))
    store = work / "store"
    env = dict(os.environ, MMKG_API_KEY="bench-key")
    env.pop("MMKG_STORE", None)
    qs = questions()
    res = {"machine": benchutil.machine_info(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "loadavg_start": benchutil.loadavg(), "questions": len(qs), "corpus": a.corpus}
    subprocess.run([a.bin, "ingest", a.corpus, "--store", str(store), "--json"], capture_output=True, env=env, check=True)
    srv = Server(a.bin, store, env)
    try:
        http("GET", srv.url + "/api/search?q=warm")
        res["search_http"] = [wrk(srv.url, c, a.duration, qs, work) for c in (1, 8, 64)]
        res["search_cli"] = cli_searches(a.bin, store, env, qs)
        ttfs = [ask_stream(srv.url, q) for q in qs[:10]]
        res["ask_stream_ms"] = {"first_step_p50": pct([t[0] for t in ttfs], 50),
                                "answer_p50": pct([t[1] for t in ttfs], 50),
                                "first_step_max": max(t[0] for t in ttfs), "answer_max": max(t[1] for t in ttfs)}
        res["mixed"] = mixed(srv.url, "bench-key", pathlib.Path(a.corpus), qs, a.rounds)
    finally:
        res["server_exit"] = srv.stop()
    chk = subprocess.run([a.bin, "check", "--store", str(store), "--json"], capture_output=True, text=True, env=env)
    res["check_ok"] = json.loads(chk.stdout).get("ok") if chk.stdout else False
    res["loadavg_end"] = benchutil.loadavg()
    benchutil.write_results(res, a.json)
    print("| connections | requests/s | p50 ms | p99 ms | errors |")
    print("|---|---|---|---|---|")
    for r in res["search_http"]:
        print(f"| {r['connections']} (HTTP, wrk) | {r['rps']:.1f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
              f"{r['errors'] + r['non2xx']} |")
    c = res["search_cli"]
    print(f"| `mmkg search` process each | {c['rps']:.1f} | {c['p50_ms']:.1f} | {c['p99_ms']:.1f} | 0 |")
    s = res["ask_stream_ms"]
    print(f"\nask (SSE, {min(10, len(qs))} questions): first step p50 {s['first_step_p50']:.1f} ms "
          f"(max {s['first_step_max']:.1f}), answer p50 {s['answer_p50']:.1f} ms (max {s['answer_max']:.1f})")
    m = res["mixed"]
    print(f"\nmixed run: statuses {m['statuses']}; documents expected {m['expected_docs']}, listed "
          f"{m['listed_docs']}, lost {m['lost']}, extra {m['extra']}; check ok: {res['check_ok']}; "
          f"server exit {res['server_exit']}")
    shutil.rmtree(work, ignore_errors=True)
    bad = [k for k in m["statuses"] if not (k.startswith("2") or k.startswith("('delete', 2"))]
    return 1 if bad or m["lost"] or m["extra"] or not res["check_ok"] else 0


if __name__ == "__main__":
    sys.exit(main())
