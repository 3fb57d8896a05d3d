#!/usr/bin/env bash
# mmkg benchmarks (`make bench`): ingest throughput on a large real PDF versus pymupdf4llm and raw
# MuPDF, and BM25 search latency; then dense/hybrid retrieval on synthetic stores and embedding
# throughput against sentence-transformers. Prints Markdown reports on stdout and writes JSON to
# bench/results/. Idempotent: installs the document's Debian package and pymupdf4llm if missing.
#
# Environment:
#   MMKG_BIN           mmkg binary (default: $BUILD_DIR/mmkg, BUILD_DIR defaulting to build)
#   SEARCH_BENCH_BIN   search latency program (default: <dir of MMKG_BIN>/bench/mmkg_search_bench;
#                      built with `cmake --build` if missing and the build has the target)
#   BENCH_PACKAGE      Debian package shipping the PDF (default: octave-doc)
#   BENCH_PDF          path of the PDF (default: /usr/share/doc/octave/octave.pdf, the GNU Octave
#                      manual, 1158 pages)
#   BENCH_RUNS         runs per mmkg / mutool measurement, median reported (default: 3)
#   BENCH_P4L_RUNS     runs of pymupdf4llm (default: 1; it takes minutes on this file)
#   BENCH_SKIP_P4L=1   skip pymupdf4llm (then no ratio is reported)
#   BENCH_SKIP_P4L_LEGACY=1  skip the second pymupdf4llm run with use_layout(False)
#   BENCH_SKIP_EMBED=1 skip the extra `mmkg ingest` run with the default embedder (when mmkg has one;
#                      the throughput rows always use --embedder none when the flag exists)
#   BENCH_SKIP_HYBRID=1      skip dense/hybrid retrieval on synthetic stores (bench/hybrid_bench.py)
#   BENCH_HYBRID_SIZES       its store sizes in chunks (default: 10000,100000,1000000; the 1M store
#                            takes ~9 GB of disk under BENCH_HYBRID_WORKDIR, default a temporary folder)
#   BENCH_SKIP_EMBEDBENCH=1  skip embedding throughput, native vs sentence-transformers, and ingest of
#                            examples/corpus with embeddings (bench/embed_bench.py; installs
#                            sentence-transformers with pip when it is missing)
#   HYBRID_BENCH_BIN, EMBED_BENCH_BIN  those programs (default: <dir of MMKG_BIN>/bench/mmkg_*_bench)
#   PYTHON             python interpreter (default: python3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# `make bench BUILD_DIR=dir` exports BUILD_DIR to this script.
case "${BUILD_DIR:-build}" in
  /*) default_build="${BUILD_DIR}" ;;
  *) default_build="$ROOT/${BUILD_DIR:-build}" ;;
esac
MMKG_BIN="${MMKG_BIN:-$default_build/mmkg}"
BUILD_DIR="$(cd "$(dirname "$MMKG_BIN")" 2>/dev/null && pwd || echo "$ROOT/build")"
SEARCH_BENCH_BIN="${SEARCH_BENCH_BIN:-$BUILD_DIR/bench/mmkg_search_bench}"
HYBRID_BENCH_BIN="${HYBRID_BENCH_BIN:-$BUILD_DIR/bench/mmkg_hybrid_bench}"
EMBED_BENCH_BIN="${EMBED_BENCH_BIN:-$BUILD_DIR/bench/mmkg_embed_bench}"
BENCH_PACKAGE="${BENCH_PACKAGE:-octave-doc}"
BENCH_PDF="${BENCH_PDF:-/usr/share/doc/octave/octave.pdf}"
BENCH_RUNS="${BENCH_RUNS:-3}"
BENCH_P4L_RUNS="${BENCH_P4L_RUNS:-1}"
PYTHON="${PYTHON:-python3}"

say() { echo "bench: $*" >&2; }

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

# 1. The document: a Debian package that ships a large text PDF.
if ! dpkg-query -W -f='${Status}' "$BENCH_PACKAGE" 2>/dev/null | grep -q "install ok installed"; then
  say "installing Debian package $BENCH_PACKAGE (ships the benchmark PDF)"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "$BENCH_PACKAGE" >&2
fi
if [ ! -f "$BENCH_PDF" ]; then
  # Same package, other layout: look the file up in the package's file list.
  found="$(dpkg -L "$BENCH_PACKAGE" 2>/dev/null | grep -E "/$(basename "$BENCH_PDF")\$" | head -n1 || true)"
  if [ -n "$found" ] && [ -f "$found" ]; then BENCH_PDF="$found"; fi
fi
if [ ! -f "$BENCH_PDF" ]; then
  say "error: $BENCH_PDF not found after installing $BENCH_PACKAGE (dpkg path-exclude for /usr/share/doc?)"
  exit 1
fi

# 2. Tools: mutool (MuPDF), PyMuPDF and pymupdf4llm.
if ! command -v mutool >/dev/null 2>&1; then
  say "installing mupdf-tools"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends mupdf-tools >&2
fi
if ! "$PYTHON" -c "import pymupdf4llm" >/dev/null 2>&1; then
  say "installing pymupdf4llm"
  "$PYTHON" -m pip install -q pymupdf4llm >&2 || "$PYTHON" -m pip install -q --break-system-packages pymupdf4llm >&2
fi

# 3. The binaries.
if [ ! -x "$MMKG_BIN" ]; then
  say "error: $MMKG_BIN not found; build it first (make build) or set MMKG_BIN"
  exit 1
fi
if [ ! -x "$SEARCH_BENCH_BIN" ] && [ -f "$BUILD_DIR/build.ninja" ]; then
  if ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q '^mmkg_search_bench:'; then
    say "building mmkg_search_bench"
    cmake --build "$BUILD_DIR" --target mmkg_search_bench >&2
  else
    say "warning: the build has no mmkg_search_bench target (add 'add_subdirectory(bench)' to CMakeLists.txt);"
    say "         search latency falls back to one 'mmkg search' process per query"
  fi
fi

# 4. Measure.
mkdir -p "$ROOT/bench/results"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="$ROOT/bench/results/bench-$stamp.json"
args=(--mmkg "$MMKG_BIN" --pdf "$BENCH_PDF" --package "$BENCH_PACKAGE" --runs "$BENCH_RUNS"
      --p4l-runs "$BENCH_P4L_RUNS" --python "$(command -v "$PYTHON")" --queries "$ROOT/bench/queries.txt"
      --out "$out")
if [ -x "$SEARCH_BENCH_BIN" ]; then args+=(--search-bench "$SEARCH_BENCH_BIN"); fi
if [ "${BENCH_SKIP_P4L:-0}" = "1" ]; then args+=(--skip-p4l); fi
if [ "${BENCH_SKIP_P4L_LEGACY:-0}" = "1" ]; then args+=(--skip-p4l-legacy); fi
if [ "${BENCH_SKIP_EMBED:-0}" = "1" ]; then args+=(--skip-embed); fi
"$PYTHON" "$ROOT/bench/bench.py" "${args[@]}"
cp "$out" "$ROOT/bench/results/latest.json"

# 5. Dense and hybrid retrieval (bench/results/history/BENCHMARKS-journal-to-20261128.md, "Dense and hybrid retrieval").
build_target() {  # build_target NAME BIN: builds a missing bench program when the build has it
  if [ ! -x "$2" ] && [ -f "$BUILD_DIR/build.ninja" ] && ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q "^$1:"; then
    say "building $1"
    cmake --build "$BUILD_DIR" --target "$1" >&2
  fi
  [ -x "$2" ] || { say "warning: $2 not found (build target $1); skipped"; return 1; }
}
if [ "${BENCH_SKIP_HYBRID:-0}" != "1" ] && build_target mmkg_hybrid_bench "$HYBRID_BENCH_BIN"; then
  say "dense/hybrid retrieval on synthetic stores (sizes ${BENCH_HYBRID_SIZES:-10000,100000,1000000})"
  hargs=(--bin "$HYBRID_BENCH_BIN" --sizes "${BENCH_HYBRID_SIZES:-10000,100000,1000000}"
         --vocab-dir "$ROOT/examples/corpus" --out "$ROOT/bench/results/hybrid-$stamp.json")
  if [ -n "${BENCH_HYBRID_WORKDIR:-}" ]; then hargs+=(--workdir "$BENCH_HYBRID_WORKDIR"); fi
  "$PYTHON" "$ROOT/bench/hybrid_bench.py" "${hargs[@]}"
fi
if [ "${BENCH_SKIP_EMBEDBENCH:-0}" != "1" ] && build_target mmkg_embed_bench "$EMBED_BENCH_BIN"; then
  if ! "$PYTHON" -c "import sentence_transformers" >/dev/null 2>&1; then
    say "installing sentence-transformers (pulls torch)"
    "$PYTHON" -m pip install -q sentence-transformers >&2 || "$PYTHON" -m pip install -q --break-system-packages sentence-transformers >&2
  fi
  say "embedding throughput: native vs sentence-transformers; ingest of examples/corpus with embeddings"
  "$PYTHON" "$ROOT/bench/embed_bench.py" --mmkg "$MMKG_BIN" --embed-bench "$EMBED_BENCH_BIN" \
    --corpus "$ROOT/examples/corpus" --out "$ROOT/bench/results/embed-$stamp.json"
fi
