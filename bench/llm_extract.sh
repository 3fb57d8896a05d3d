#!/usr/bin/env bash
# LLM extraction throughput (docs/BENCHMARKS.md, "LLM extraction"): `mmkg ingest --extract llm
# --llm local#concurrency=N` on one document of examples/corpus at N = 1, 2, 4 (two rounds, in
# alternating order), each on a fresh store (so neither the extraction cache nor the LLM response
# cache helps), then the document deleted and ingested again (must make zero model calls), and a
# rules-only ingest to compare the graphs. Needs `make setup` (llama-cpp-python and the SmolLM2 GGUF) and a build.
#
# Environment:
#   MMKG_BIN                mmkg binary (default: build/mmkg)
#   LLM_BENCH_DOC           the document (default: examples/corpus/attention_wiki.txt, 7 chunks)
#   LLM_BENCH_CONCURRENCY   concurrencies to run (default: 1,2,4)
#   LLM_BENCH_ROUNDS        rounds, alternating the order (default: 2: 1,2,4,4,2,1)
#   PYTHON                  python interpreter (default: python3)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MMKG_BIN="${MMKG_BIN:-$ROOT/build/mmkg}"
DOC="${LLM_BENCH_DOC:-$ROOT/examples/corpus/attention_wiki.txt}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$MMKG_BIN" ]; then
  echo "bench: error: $MMKG_BIN not found; build it first (make build) or set MMKG_BIN" >&2
  exit 1
fi
mkdir -p "$ROOT/bench/results"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
"$PYTHON" "$ROOT/bench/llm_extract.py" --mmkg "$MMKG_BIN" --doc "$DOC" \
  --concurrency "${LLM_BENCH_CONCURRENCY:-1,2,4}" --rounds "${LLM_BENCH_ROUNDS:-2}" --out "$ROOT/bench/results/llm-extract-$stamp.json"
