# The dev sets' documents, QA files and stores, for scripts/eval_all.sh and
# scripts/train_models.sh (sourced from the checkout's root), with their environment's defaults.
BUILD_DIR=${BUILD_DIR:-build}
BIN=${MMKG_BIN:-$BUILD_DIR/mmkg}
DATA=${EVAL_DATA:-$BUILD_DIR/eval-data}
SETS=${EVAL_SETS:-dev vignettes manuals 2wiki}
INGEST_ARGS=${INGEST_ARGS:-}
SHARED=${MMKG_SHARED:-../shared}

docs_of() {  # the set's documents folder (fetched on first use)
  case "$1" in
    dev) echo "examples/corpus" ;;
    vignettes) bash "$SHARED/eval/fetch_vignettes.sh" "$DATA/vignettes" >&2; echo "$DATA/vignettes" ;;
    manuals) bash "$SHARED/eval/fetch_manuals.sh" "$DATA/manuals" >&2; echo "$DATA/manuals" ;;
    # 6,119 passages, a file each, made from the corpus the HippoRAG 2 paper scores (README there).
    2wiki) python3 "$SHARED/eval/2wiki/make_2wiki.py" "$SHARED/eval/2wiki/corpus.json" "$DATA/2wiki" \
             --parts "$SHARED/eval/2wiki/dev_2wiki_source.jsonl" >&2; echo "$DATA/2wiki/docs" ;;
    *) echo "eval: unknown set '$1' (dev, vignettes, manuals, 2wiki)" >&2; exit 2 ;;
  esac
}

qa_of() {
  case "$1" in
    dev) echo "$SHARED/eval/dev_qa.jsonl" ;;
    vignettes) echo "$SHARED/eval/dev_vignettes_qa.jsonl" ;;
    manuals) echo "$SHARED/eval/dev_manuals_qa.jsonl" ;;
    2wiki) echo "$SHARED/eval/2wiki/dev_2wiki_qa.jsonl" ;;
  esac
}

# The set's store, ingested when missing. "Once per build": it is keyed by a hash of the binary,
# INGEST_ARGS and the document files' names and sizes; a store with that key is reused, any
# other one is rebuilt.
eval_store() {
  local docs key store
  docs=$(docs_of "$1")
  key=$( { sha256sum "$BIN" | cut -c1-16; echo "$INGEST_ARGS";
           find "$docs" -type f -printf '%P %s\n' | LC_ALL=C sort; } | sha256sum | cut -c1-16)
  store="$DATA/stores/$1-$key"
  if [ ! -f "$store/.eval-complete" ]; then
    rm -rf "$DATA/stores/$1-"*
    echo "eval: ingesting $1 ($docs) into $store" >&2
    # shellcheck disable=SC2086
    "$BIN" ingest "$docs" --store "$store" $INGEST_ARGS >&2
    touch "$store/.eval-complete"
  fi
  echo "$store"
}
