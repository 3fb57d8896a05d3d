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
BUILD_DIR=${BUILD_DIR:-build}
BIN=${MMKG_BIN:-$BUILD_DIR/mmkg}
DATA=${EVAL_DATA:-$BUILD_DIR/eval-data}
SETS=${EVAL_SETS:-dev vignettes manuals}
EVAL_ARGS=${EVAL_ARGS:---llm none}
INGEST_ARGS=${INGEST_ARGS:-}
SHARED=${MMKG_SHARED:-../shared}
OUT=${1:-$BUILD_DIR/eval/eval-all.json}

[ -x "$BIN" ] || { echo "eval_all: no binary at $BIN; run make build first (or set MMKG_BIN)" >&2; exit 1; }
[ -d "$SHARED/eval" ] || { echo "eval_all: $SHARED/eval not found; the dev sets live in ../shared/eval beside the checkout (or set MMKG_SHARED)" >&2; exit 1; }
mkdir -p "$DATA" "$(dirname "$OUT")"
work=$(dirname "$OUT")/eval-sets
mkdir -p "$work"

docs_of() {  # the set's documents folder (fetched on first use)
  case "$1" in
    dev) echo "examples/corpus" ;;
    vignettes) bash "$SHARED/eval/fetch_vignettes.sh" "$DATA/vignettes" >&2; echo "$DATA/vignettes" ;;
    manuals) bash "$SHARED/eval/fetch_manuals.sh" "$DATA/manuals" >&2; echo "$DATA/manuals" ;;
    *) echo "eval_all: unknown set '$1' (dev, vignettes, manuals)" >&2; exit 2 ;;
  esac
}
qa_of() {
  case "$1" in
    dev) echo "$SHARED/eval/dev_qa.jsonl" ;;
    vignettes) echo "$SHARED/eval/dev_vignettes_qa.jsonl" ;;
    manuals) echo "$SHARED/eval/dev_manuals_qa.jsonl" ;;
  esac
}

args=()
for set in $SETS; do
  docs=$(docs_of "$set")
  key=$( { sha256sum "$BIN" | cut -c1-16; echo "$INGEST_ARGS";
           find "$docs" -type f -printf '%P %s\n' | LC_ALL=C sort; } | sha256sum | cut -c1-16)
  store="$DATA/stores/$set-$key"
  if [ ! -f "$store/.eval-complete" ]; then
    rm -rf "$DATA/stores/$set-"*
    echo "eval_all: ingesting $set ($docs) into $store" >&2
    # shellcheck disable=SC2086
    "$BIN" ingest "$docs" --store "$store" $INGEST_ARGS >&2
    touch "$store/.eval-complete"
  fi
  echo "eval_all: scoring $set" >&2
  # shellcheck disable=SC2086
  "$BIN" eval "$(qa_of "$set")" --store "$store" --mode all --answers $EVAL_ARGS --json > "$work/$set.json"
  args+=("$set=$work/$set.json")
done
python3 scripts/eval_pool.py --out "$OUT" "${args[@]}"
echo "eval_all: wrote $OUT" >&2
