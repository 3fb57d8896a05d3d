"""LLM extraction throughput (`mmkg ingest --extract llm --llm local#concurrency=N`).

For each concurrency N: a fresh store, one document ingested with the local model server
(llama-cpp-python + SmolLM2-135M-Instruct, started by mmkg), `-v --json`. Reported per run:
chunks extracted, model calls (gleaning included), HTTP requests (mmkg's count and the server
log's), tokens, fallbacks, the server start-up (timed from mmkg's own stderr lines) and chunks/s
over extraction time without the start-up. Then, on the last store: the document deleted and
ingested again (the graph rebuilt from the extraction cache), which must make zero model calls;
and a rules-only ingest of the same document for the entity/relation counts.

Writes JSON (--out) and prints a Markdown table."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import loadavg, machine_info, write_results  # noqa: E402


def run_timed(cmd, env):
    """Runs cmd; returns (rc, stdout, [(seconds since start, stderr line)], wall seconds)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         stdin=subprocess.DEVNULL)
    lines = []

    def pump():
        for line in p.stderr:
            lines.append((time.monotonic() - t0, line.rstrip("\n")))

    t = threading.Thread(target=pump)
    t.start()
    out = p.stdout.read()
    p.wait()
    t.join()
    return p.returncode, out, lines, time.monotonic() - t0


def server_startup(lines):
    start = next((t for t, l in lines if "starting the local model server" in l), None)
    ready = next((t for t, l in lines if re.search(r"mmkg: llm: .* ready at ", l)), None)
    return (ready - start) if start is not None and ready is not None else 0.0


def posts_in_log(store):
    try:
        with open(os.path.join(store, "local-llm.log"), errors="replace") as f:
            # uvicorn's access lines only (an error's traceback may quote the request line)
            return sum(1 for line in f if re.search(r'"POST /v1/chat/completions HTTP/1\.1" \d{3}', line))
    except OSError:
        return None


def server_timings(store):
    """From llama.cpp's per-request timings in the server log: the server's busy time (sum of the
    requests' total times: equal to the wall time when it serves one request at a time), the
    prompt tokens it evaluated after reusing the cached prefix of the previous request, and the
    generation rate."""
    try:
        with open(os.path.join(store, "local-llm.log"), errors="replace") as f:
            t = f.read()
    except OSError:
        return {}
    pe = [(float(a), int(b)) for a, b in re.findall(r"prompt eval time =\s+([\d.]+) ms /\s+(\d+) tokens", t)]
    ev = [(float(a), int(b)) for a, b in re.findall(r"\seval time =\s+([\d.]+) ms /\s+(\d+) runs", t)]
    tot = [float(a) for a in re.findall(r"total time =\s+([\d.]+) ms", t)]
    return {"requests_timed": len(tot), "busy_seconds": round(sum(tot) / 1000, 2),
            "first_request_seconds": round(tot[0] / 1000, 2) if tot else None,
            "prompt_eval_seconds": round(sum(a for a, _ in pe) / 1000, 2),
            "prompt_tokens_evaluated": sum(b for _, b in pe),
            "generation_seconds": round(sum(a for a, _ in ev) / 1000, 2),
            "generated_tokens": sum(b for _, b in ev)}


def graph_counts(mmkg, store, env):
    p = subprocess.run([mmkg, "graph", "export", "--store", store], capture_output=True, text=True, env=env)
    rows = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    ents = [r for r in rows if r["kind"] == "entity"]
    rels = [r for r in rows if r["kind"] == "relation"]
    names = {e["id"]: e["name"] for e in ents}
    types = {}
    for e in ents:
        types[e["type"]] = types.get(e["type"], 0) + 1
    typed = [f'{names.get(r["src"], r["src"])} -[{r["type"]}]-> {names.get(r["dst"], r["dst"])}'
             for r in rels if r["type"] != "co_occurs"]
    return {"entities": len(ents), "relations": len(rels),
            "relations_not_co_occurs": sum(1 for r in rels if r["type"] != "co_occurs"),
            "entity_types": types, "typed_relation_examples": typed[:12]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmkg", required=True)
    ap.add_argument("--doc", required=True, help="the document to extract")
    ap.add_argument("--concurrency", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run the concurrencies this many times, alternating the order (1,2,4,4,2,1, ...), "
                         "so that a drift in the machine's load does not favour one of them")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the stores (printed)")
    a = ap.parse_args()

    env = dict(os.environ)
    env.pop("MMKG_STORE", None)
    env["MMKG_EMBEDDER"] = "none"  # embedding is not what is measured
    work = tempfile.mkdtemp(prefix="mmkg-llm-bench-")
    res = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "machine": machine_info(),
           "doc": a.doc, "doc_bytes": os.path.getsize(a.doc), "runs": []}
    store = None
    order = [int(x) for x in a.concurrency.split(",")]
    plan = []
    for r in range(a.rounds):
        plan += order if r % 2 == 0 else order[::-1]
    for i, c in enumerate(plan):
        store = os.path.join(work, f"store-{i}-c{c}")
        cmd = [a.mmkg, "ingest", a.doc, "--store", store, "--extract", "llm", "--llm", f"local#concurrency={c}",
               "--json", "-v"]
        load = loadavg()
        rc, out, lines, wall = run_timed(cmd, env)
        if rc != 0:
            sys.exit(f"failed (rc {rc}): {' '.join(cmd)}\n" + "\n".join(l for _, l in lines[-20:]))
        j = json.loads(out)
        g = j["graph"]
        startup = server_startup(lines)
        extract = g["extract_seconds"] - startup
        run = {"concurrency": c, "command": " ".join(cmd), "load_before": load, "wall_seconds": round(wall, 2),
               "server_startup_seconds": round(startup, 2), "extract_seconds": round(g["extract_seconds"], 2),
               "extract_seconds_without_startup": round(extract, 2), "chunks": j["chunks"],
               "chunks_extracted": g["chunks_extracted"],
               "chunks_per_second": round(g["chunks_extracted"] / extract, 4) if extract > 0 else None,
               "llm_calls": g["llm_calls"], "llm_requests": g["llm_requests"],
               "server_log_posts": posts_in_log(store), "llm_cached": g["llm_cached"],
               "llm_fallbacks": g["llm_fallbacks"], "prompt_tokens": g["prompt_tokens"],
               "completion_tokens": g["completion_tokens"], "extractor": g["extractor"],
               "load_after": loadavg(), "warnings": [l for _, l in lines if "warning" in l]}
        run.update({"graph": graph_counts(a.mmkg, store, env), "server": server_timings(store)})
        res["runs"].append(run)
        print(f"bench: c={c}: {run['chunks_extracted']} chunks in {extract:.1f} s "
              f"({run['chunks_per_second']} chunks/s), {run['llm_calls']} calls", file=sys.stderr)

    # Rebuild from the cache: delete the document and ingest it again. No server should start.
    subprocess.run([a.mmkg, "delete", os.path.basename(a.doc), "--store", store], check=True, capture_output=True,
                   env=env)
    cmd = [a.mmkg, "ingest", a.doc, "--store", store, "--extract", "llm", "--llm", "local", "--json", "-v"]
    rc, out, lines, wall = run_timed(cmd, env)
    g = json.loads(out)["graph"]
    res["second_run"] = {"command": cmd_str(cmd), "wall_seconds": round(wall, 2), "llm_calls": g["llm_calls"],
                         "llm_requests": g["llm_requests"], "extractions_cached": g["extractions_cached"],
                         "chunks_extracted": g["chunks_extracted"],
                         "server_started": any("starting the local model server" in l for _, l in lines),
                         "entities": g["entities"], "relations": g["relations"]}

    rules_store = os.path.join(work, "store-rules")
    p = subprocess.run([a.mmkg, "ingest", a.doc, "--store", rules_store, "--json"], capture_output=True, text=True,
                       env=env, check=True)
    res["rules"] = {"command": f"mmkg ingest {a.doc} --json", **graph_counts(a.mmkg, rules_store, env),
                    "extract_seconds": json.loads(p.stdout)["graph"]["extract_seconds"]}
    write_results(res, a.out)
    report(res)
    if a.keep:
        print(f"stores kept in {work}", file=sys.stderr)
    else:
        shutil.rmtree(work, ignore_errors=True)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def cmd_str(cmd):
    return " ".join(cmd)


def report(res):
    m = res["machine"]
    print(f"LLM extraction of {os.path.basename(res['doc'])} ({res['doc_bytes']} bytes), "
          f"{res['date_utc']} UTC, {m.get('nproc')} cores ({m.get('cpu', '?')})\n")
    print("| concurrency | chunks | extraction s (without server start) | chunks/s | model calls | HTTP requests "
          "(server log) | prompt + completion tokens | fallbacks | server start s | load before / after |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in res["runs"]:
        print(f"| {r['concurrency']} | {r['chunks_extracted']} | {r['extract_seconds_without_startup']} | "
              f"{r['chunks_per_second']} | {r['llm_calls']} | {r['llm_requests']} ({r['server_log_posts']}) | "
              f"{r['prompt_tokens']} + {r['completion_tokens']} | {r['llm_fallbacks']} | "
              f"{r['server_startup_seconds']} | {r['load_before']} / {r['load_after']} |")
    if len(res["runs"]) > len({r["concurrency"] for r in res["runs"]}):
        print("\nMedian over the rounds:\n")
        print("| concurrency | runs | chunks/s (median) | extraction s (median) |")
        print("|---|---|---|---|")
        for c in sorted({r["concurrency"] for r in res["runs"]}):
            rs = [r for r in res["runs"] if r["concurrency"] == c]
            cps = sorted(r["chunks_per_second"] for r in rs)
            ext = sorted(r["extract_seconds_without_startup"] for r in rs)
            print(f"| {c} | {len(rs)} | {median(cps):.4f} | {median(ext):.1f} |")
    print("\nThe server's own timings (llama.cpp, per request, summed):\n")
    print("| concurrency | server busy s | extraction s | first request s | prompt tokens evaluated (prefix reuse) | "
          "prompt eval s | generated tokens | generation s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in res["runs"]:
        v = r.get("server") or {}
        print(f"| {r['concurrency']} | {v.get('busy_seconds')} | {r['extract_seconds_without_startup']} | "
              f"{v.get('first_request_seconds')} | {v.get('prompt_tokens_evaluated')} | {v.get('prompt_eval_seconds')} | "
              f"{v.get('generated_tokens')} | {v.get('generation_seconds')} |")
    s = res["second_run"]
    print(f"\nSecond run (document deleted and ingested again): {s['llm_calls']} model calls, "
          f"{s['llm_requests']} requests, {s['extractions_cached']} extractions from the cache, server started: "
          f"{s['server_started']}, {s['wall_seconds']} s wall.")
    last = res["runs"][-1]["graph"]
    print(f"\nGraph: LLM {last['entities']} entities, {last['relations']} relations "
          f"({last['relations_not_co_occurs']} not co_occurs); rules {res['rules']['entities']} entities, "
          f"{res['rules']['relations']} relations ({res['rules']['relations_not_co_occurs']} not co_occurs).")
    print(f"LLM entity types: {last['entity_types']}")
    for x in last["typed_relation_examples"]:
        print(f"  {x}")


if __name__ == "__main__":
    main()
