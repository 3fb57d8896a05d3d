#!/usr/bin/env python3
"""Figure stage of `mmkg ingest` on one real document (bench/results/history/BENCHMARKS-journal-to-20261128.md, "A manual with
screenshots"): figures per second with OCR off and on, OCR's share of ingest time, and what an
ingest of the same document costs the second time (OCR runs and vision-model calls).

Each configuration ingests the document into a fresh store (--embedder none --graph none, so the
times are parsing, figures, OCR and writing); the best of --rounds wall times is kept:
  text      --no-figures            text only
  figures   --no-ocr                + figure extraction (regions rendered to PNG)
  ocr       (default)               + Tesseract on the raster figures
  vlm       --vlm STUB              + one vision-model call per figure
The vision model is a stub OpenAI-compatible server on loopback (started here) that answers every
chat request at once with a fixed description and counts the requests it got: the numbers are
the engine's cost around the model, not a model's speed. Then, in the vlm store:
  again     the same path ingested again (unchanged: skipped)
  reingest  `mmkg delete` then ingest again: the figures are extracted anew, and OCR text and
            descriptions come from the store's figure cache; the stub counts 0 new requests.

  bench/figures_ingest.py [--mmkg build/mmkg] [--rounds 3] [--json OUT] FILE.pdf
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import loadavg, machine_info, write_results  # noqa: E402

ANSWER = {"description": "A wiring diagram next to a screenshot of the program's plot window.",
          "text": "CH1 CH2 A1 A2", "kind": "screenshot"}


class StubVlm:
    """An OpenAI-compatible chat endpoint that answers every request with ANSWER."""

    def __init__(self):
        self.requests = 0
        lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):  # /v1/models, should a client probe it
                self._send({"object": "list", "data": [{"id": "stub-vlm", "object": "model"}]})

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                with lock:
                    outer.requests += 1
                content = json.dumps(ANSWER)
                if body.get("stream"):
                    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": content},
                                          "finish_reason": "stop"}]}
                    data = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self._send({"id": "stub", "object": "chat.completion", "model": "stub-vlm",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

            def _send(self, obj):
                data = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def ingest(mmkg, store, pdf, *extra):
    """One `mmkg ingest --json`; returns (its JSON, wall seconds measured here)."""
    cmd = [mmkg, "--store", store, "--embedder", "none", "--graph", "none", "ingest", pdf, "--json", *extra]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"figures_ingest: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return json.loads(p.stdout), wall


def row(name, j, wall, extra=None):
    r = {"run": name, "wall_s": round(wall, 3), "seconds": j.get("seconds"), "documents": j.get("documents"),
         "skipped": j.get("skipped"), "figures": j.get("figures"), "ocr": j.get("ocr"), "vision": j.get("vision")}
    r.update(extra or {})
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pdf")
    ap.add_argument("--mmkg", default=os.path.join(os.path.dirname(__file__), "..", "build", "mmkg"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    mmkg = os.path.abspath(a.mmkg)
    work = tempfile.mkdtemp(prefix="mmkg-figbench-")
    stub = StubVlm()
    runs, stores = {}, {}
    try:
        configs = [("text", ["--no-figures"]), ("figures", ["--no-ocr"]), ("ocr", []),
                   ("vlm", ["--vlm", stub.url + "#model=stub-vlm"])]
        for name, extra in configs:
            best = None
            for k in range(a.rounds):
                store = os.path.join(work, f"{name}-{k}")
                before = stub.requests
                j, wall = ingest(mmkg, store, a.pdf, *extra)
                calls = stub.requests - before
                if best is None or wall < best[1]:
                    if best is not None:
                        shutil.rmtree(best[3])
                    best = (j, wall, calls, store)
                else:
                    shutil.rmtree(store)
            j, wall, calls, store = best
            runs[name] = row(name, j, wall, {"stub_requests": calls})
            stores[name] = store
        # The same document again, into the vlm store: unchanged, then deleted and ingested anew.
        store = stores["vlm"]
        extra = ["--vlm", stub.url + "#model=stub-vlm"]
        before = stub.requests
        j, wall = ingest(mmkg, store, a.pdf, *extra)
        runs["again"] = row("again", j, wall, {"stub_requests": stub.requests - before})
        d = subprocess.run([mmkg, "--store", store, "--graph", "none", "delete", os.path.basename(a.pdf)],
                           capture_output=True, text=True)
        if d.returncode != 0:
            sys.exit(f"figures_ingest: delete failed:\n{d.stderr}")
        before = stub.requests
        j, wall = ingest(mmkg, store, a.pdf, *extra)
        runs["reingest"] = row("reingest", j, wall, {"stub_requests": stub.requests - before})
    finally:
        stub.stop()
        shutil.rmtree(work, ignore_errors=True)

    t, f, o = runs["text"]["wall_s"], runs["figures"]["wall_s"], runs["ocr"]["wall_s"]
    nfig = runs["ocr"]["figures"] or 0
    summary = {
        "figures": nfig,
        "figures_per_s_no_ocr": round(nfig / (f - t), 1) if f > t else None,
        "figures_per_s_ocr": round(nfig / (o - t), 1) if o > t else None,
        "ocr_share_of_ingest": round((o - f) / o, 3),
        "ocr_cpu_seconds": runs["ocr"]["ocr"]["seconds"],
    }
    res = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": machine_info(), "loadavg": loadavg(),
           "document": a.pdf, "rounds": a.rounds, "runs": list(runs.values()), "summary": summary}

    print(f"# Figure stage of ingest: {os.path.basename(a.pdf)}\n")
    m = res["machine"]
    print(f"{res['date']}, {m.get('nproc')} cores, {m.get('cpu', '?')}, load average {res['loadavg']}, "
          f"best of {a.rounds}\n")
    print("| run | wall s | documents | skipped | figures | OCR runs | OCR cached | OCR s (all threads) | vision calls "
          "| vision cached | stub requests |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs.values():
        oc, vi = r["ocr"] or {}, r["vision"] or {}
        print(f"| {r['run']} | {r['wall_s']:.2f} | {r['documents']} | {r['skipped']} | {r['figures']} | {oc.get('images')} | {oc.get('cached')} | "
              f"{oc.get('seconds', 0):.2f} | {vi.get('calls')} | {vi.get('cached')} | {r['stub_requests']} |")
    print()
    print(f"- figures/s without OCR: {summary['figures_per_s_no_ocr']} (figures / (figures - text) wall time)")
    print(f"- figures/s with OCR: {summary['figures_per_s_ocr']} (figures / (ocr - text) wall time)")
    print(f"- OCR's share of ingest time: {summary['ocr_share_of_ingest']:.0%} ((ocr - figures) / ocr wall time)")
    if a.json:
        write_results(res, a.json)


if __name__ == "__main__":
    main()
