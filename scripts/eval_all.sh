#!/usr/bin/env bash
# The three dev sets together (make eval): fetches their documents, ingests each set once per
# build, scores every set with `mmkg eval --mode all --answers`, and writes one JSON file with
# each set's report and the pooled figures (scripts/eval_pool.py), then prints the table.
#
#   scripts/eval_all.sh [OUT.json]        (default: $BUILD_DIR/eval/eval-all.json)
#
# Environment:
#   MMKG_BIN     the binary (default: $BUILD_DIR/mmkg; BUILD_DIR defaults to build)
#   EVAL_DATA    where the documents and stores go (default: $BUILD_DIR/eval-data)
#   EVAL_SETS    which sets (default: "dev vignettes manuals")
#   EVAL_ARGS    extra arguments for `mmkg eval` (default: --llm none), e.g. "--llm local"
#   INGEST_ARGS  extra arguments for `mmkg ingest` (part of the store's key), e.g.
#                "--embedder native:fp32"
#
# "Once per build": a set's store is keyed by a hash of the binary, INGEST_ARGS and the document
# files' names and sizes; a store with that key is reused, any other one is rebuilt. The dev sets
# and their fetch scripts are in ../shared/eval (README there).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/eval_sets.sh
. scripts/eval_sets.sh
EVAL_ARGS=${EVAL_ARGS:---llm none}
OUT=${1:-$BUILD_DIR/eval/eval-all.json}

[ -x "$BIN" ] || { echo "eval_all: no binary at $BIN; run make build first (or set MMKG_BIN)" >&2; exit 1; }
[ -d "$SHARED/eval" ] || { echo "eval_all: $SHARED/eval not found; the dev sets live in ../shared/eval beside the checkout (or set MMKG_SHARED)" >&2; exit 1; }
mkdir -p "$DATA" "$(dirname "$OUT")"
work=$(dirname "$OUT")/eval-sets
mkdir -p "$work"
args=()
for set in $SETS; do
  store=$(eval_store "$set")
  echo "eval_all: scoring $set" >&2
  # shellcheck disable=SC2086
  "$BIN" eval "$(qa_of "$set")" --store "$store" --mode all --answers $EVAL_ARGS --json > "$work/$set.json"
  args+=("$set=$work/$set.json")
done
python3 scripts/eval_pool.py --out "$OUT" "${args[@]}"
echo "eval_all: wrote $OUT" >&2
