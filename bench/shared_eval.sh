#!/bin/bash
# bench/shared_eval.sh NEO4J_STATE_DIR [WORK_DIR]
#
# The dev sets on the shared store against the embedded store (issue 35, item 4: recall@10 and
# MRR equal within 0.01). For each set in EVAL_SETS (default "dev vignettes manuals"): empties
# the Neo4j database of a server started with `scripts/neo4j.sh start NEO4J_STATE_DIR`, ingests
# the set's documents once into an embedded store and once into the shared store (default
# ingest: figures, OCR, graph), then runs `mmkg eval QA --mode all --answers --llm none` on the
# embedded store, on the shared store through the writer's cache, and on the shared store
# through a new node's empty cache (a second machine). Prints per set and mode recall@10 and
# MRR for the three, answer accuracy, and the largest difference from the embedded store.
# MMKG_BIN: the binary (default build/mmkg). Documents are fetched as `make eval` does.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 NEO4J_STATE_DIR [WORK_DIR]" >&2; exit 2; }
cd "$(dirname "$0")/.."
STATE=$1
WORK=${2:-$(mktemp -d)}
# shellcheck source=scripts/eval_sets.sh
. scripts/eval_sets.sh
H=$(bash scripts/neo4j.sh status "$STATE")
U="neo4j://${H#http://}"
q() { curl -sf -XPOST "$H/db/neo4j/query/v2" -H 'Content-Type: application/json' -d "{\"statement\":\"$1\"}" >/dev/null; }
mkdir -p "$WORK"
for set in $SETS; do
  docs=$(docs_of "$set")
  qa=$(qa_of "$set")
  q "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
  rm -rf "$WORK/e-$set" "$WORK/w-$set" "$WORK/r-$set"
  echo "shared_eval: $set: ingest, embedded" >&2
  "$BIN" ingest "$docs" --store "$WORK/e-$set" --no-progress --json >"$WORK/ingest-e-$set.json"
  echo "shared_eval: $set: ingest, shared" >&2
  "$BIN" ingest "$docs" --store "$U" --cache "$WORK/w-$set" --no-progress --json >"$WORK/ingest-s-$set.json"
  for run in e w r; do
    if [ $run = e ]; then st=("$WORK/e-$set"); else st=("$U" --cache "$WORK/$run-$set"); fi
    echo "shared_eval: $set: eval ($run)" >&2
    "$BIN" eval "$qa" --store "${st[@]}" --mode all --answers --llm none --json >"$WORK/eval-$run-$set.json"
  done
  "$BIN" check --store "$U" --cache "$WORK/r-$set" --json >"$WORK/check-$set.json" ||
    echo "shared_eval: $set: mmkg check failed on the shared store ($WORK/check-$set.json)" >&2
done
python3 - "$WORK" $SETS <<'PY'
import json, sys
work, sets = sys.argv[1], sys.argv[2:]
worst = 0.0
print("| set | mode | recall@10 embedded / shared (writer) / shared (new node) | MRR embedded / writer / new node |")
print("|---|---|---|---|")
for s in sets:
    r = {run: json.load(open(f"{work}/eval-{run}-{s}.json")) for run in "ewr"}
    for mode in r["e"]["modes"]:
        rec = [r[x]["modes"][mode]["recall_at_k"]["10"] for x in "ewr"]
        mrr = [r[x]["modes"][mode]["mrr"] for x in "ewr"]
        worst = max(worst, *(abs(v - rec[0]) for v in rec), *(abs(v - mrr[0]) for v in mrr))
        print(f"| {s} | {mode} | {' / '.join(f'{v:.3f}' for v in rec)} | {' / '.join(f'{v:.3f}' for v in mrr)} |")
    acc = [r[x]["answer_accuracy"] for x in "ewr"]
    print(f"| {s} | answers (accuracy) | {' / '.join(f'{v:.3f}' for v in acc)} | |")
    ing = {x: json.load(open(f"{work}/ingest-{x}-{s}.json")) for x in "es"}
    print(f"| {s} | ingest: documents, chunks, figures | " +
          " / ".join(f"{ing[x]['documents']}, {ing[x]['chunks']}, {ing[x].get('figures', '-')}" for x in "es") + " | |")
print(f"\nlargest difference from the embedded store (recall@10 or MRR, any set or mode): {worst:.4f}")
PY
