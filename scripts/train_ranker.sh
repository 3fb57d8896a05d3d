#!/usr/bin/env bash
# Retrains the fitted ranker (make train-ranker): ingests the three dev sets as `make eval` does
# (same stores), writes each set's training rows with `mmkg eval --fusion fitted --features`, and
# fits models/ranker.json with scripts/train_ranker.py (document-grouped nested cross-validation).
# Rebuild afterwards (make build) to build the new model into the binary; `make eval` with
# EVAL_ARGS="--llm none --fusion fitted --cv" then gives its cross-validated figures.
#
#   scripts/train_ranker.sh [OUT.json]     (default: models/ranker.json)
#
# Environment: MMKG_BIN, EVAL_DATA, EVAL_SETS, INGEST_ARGS as for scripts/eval_all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/eval_sets.sh
. scripts/eval_sets.sh
OUT=${1:-models/ranker.json}

[ -x "$BIN" ] || { echo "train_ranker: no binary at $BIN; run make build first (or set MMKG_BIN)" >&2; exit 1; }
[ -d "$SHARED/eval" ] || { echo "train_ranker: $SHARED/eval not found (or set MMKG_SHARED)" >&2; exit 1; }
mkdir -p "$DATA" "$BUILD_DIR/train"
feats=() qas=()
for set in $SETS; do
  store=$(eval_store "$set")
  rows="$BUILD_DIR/train/$set.features.jsonl"
  echo "train_ranker: features of $set" >&2
  "$BIN" eval "$(qa_of "$set")" --store "$store" --mode hybrid --fusion fitted --features "$rows" > /dev/null
  feats+=("$set=$rows")
  qas+=(--qa "$set=$(qa_of "$set")")
done
python3 scripts/train_ranker.py --out "$OUT" "${feats[@]}" "${qas[@]}"
echo "train_ranker: wrote $OUT; make build puts it into the binary" >&2
