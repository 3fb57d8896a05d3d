#!/usr/bin/env bash
# Refits the fitted models on the three dev sets (make train): ingests them as `make eval` does
# (same stores), writes their training rows with `mmkg eval --features`, and fits
#   models/ranker.json      (--fusion fitted; built into the binary: make build after this)
#                           by scripts/train_ranker.py, from `eval --fusion fitted --features`;
#   models/answerable.json  (--answerable FILE) by scripts/train_answerable.py, from
#                           `eval --answers --llm none --features` (ask's default retrieval);
#   models/selector.json    (--selector FILE) by scripts/train_selector.py, from the same rows
#                           (each answer's candidate sentences, "kind": "selector");
# all with document-grouped nested cross-validation (scripts/fitting.py), the same folds.
# `make eval` with EVAL_ARGS="--llm none --fusion fitted --cv" (or "--llm none --answerable
# models/answerable.json --cv", or "... --selector models/selector.json --cv") then gives their
# cross-validated figures end to end.
#
#   scripts/train_models.sh [OUT_DIR]     (default: models)
#
# Environment: MMKG_BIN, EVAL_DATA, EVAL_SETS, INGEST_ARGS as for scripts/eval_all.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/eval_sets.sh
. scripts/eval_sets.sh
OUT=${1:-models}

[ -x "$BIN" ] || { echo "train_models: no binary at $BIN; run make build first (or set MMKG_BIN)" >&2; exit 1; }
[ -d "$SHARED/eval" ] || { echo "train_models: $SHARED/eval not found (or set MMKG_SHARED)" >&2; exit 1; }
mkdir -p "$DATA" "$BUILD_DIR/train" "$OUT"
ranker=() answerable=() qas=()
for set in $SETS; do
  store=$(eval_store "$set")
  rows="$BUILD_DIR/train/$set"
  echo "train_models: training rows of $set" >&2
  "$BIN" eval "$(qa_of "$set")" --store "$store" --mode hybrid --fusion fitted --features "$rows.ranker.jsonl" > /dev/null
  "$BIN" eval "$(qa_of "$set")" --store "$store" --mode hybrid --answers --llm none \
    --features "$rows.answerable.jsonl" > /dev/null
  ranker+=("$set=$rows.ranker.jsonl")
  answerable+=("$set=$rows.answerable.jsonl")
  qas+=(--qa "$set=$(qa_of "$set")")
done
python3 scripts/train_ranker.py --out "$OUT/ranker.json" "${ranker[@]}" "${qas[@]}"
python3 scripts/train_answerable.py --out "$OUT/answerable.json" "${answerable[@]}" "${qas[@]}"
# The selector keeps all its features: backward elimination chose differently in every fold and
# lost under nested cross-validation (docs/EVAL.md, "Answer-sentence selection").
python3 scripts/train_selector.py --all-features --out "$OUT/selector.json" "${answerable[@]}" "${qas[@]}"
echo "train_models: wrote $OUT/ranker.json, $OUT/answerable.json and $OUT/selector.json; make build puts the" \
  "ranker into the binary" >&2
