#!/usr/bin/env bash
# A dev set's scores at several chunk sizes, and their mean: a steadier yardstick than one size.
# On the 48-question vignettes set a ±50-character change of --chunk-size moves hybrid R@10 by up
# to 0.045 and answer accuracy by up to 3 questions (bench/results/history/EVAL-journal-to-20261128.md, "Issue 13, session 5").
#
#   scripts/eval_sizes.sh MMKG_BIN QA.jsonl DOCS_DIR WORK_DIR [SIZES...]   (default 950 1000 1050)
#
# Ingests DOCS_DIR into WORK_DIR/store-SIZE (kept, so a rerun only evaluates), runs
# `mmkg eval QA --answers --llm none --json` on each, writes WORK_DIR/eval-SIZE.json and prints
# per size and on average: hybrid R@10 and MRR, hybrid+graph R@10, answer accuracy and citation
# precision.
set -euo pipefail
if [ $# -lt 4 ]; then sed -n '2,11p' "$0"; exit 2; fi
bin=$1 qa=$2 docs=$3 work=$4
shift 4
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(950 1000 1050)
mkdir -p "$work"
for cs in "${sizes[@]}"; do
  st="$work/store-$cs"
  [ -d "$st" ] || "$bin" ingest "$docs" --store "$st" --chunk-size "$cs" >/dev/null
  "$bin" eval "$qa" --store "$st" --answers --llm none --json > "$work/eval-$cs.json"
done
python3 - "$work" "${sizes[@]}" <<'PY'
import json, sys
work, sizes = sys.argv[1], sys.argv[2:]
rows = []
for cs in sizes:
    d = json.load(open(f"{work}/eval-{cs}.json"))
    m = d["modes"]
    rows.append((cs, m["hybrid"]["recall_at_k"]["10"], m["hybrid"]["mrr"],
                 m.get("hybrid+graph", m["hybrid"])["recall_at_k"]["10"],
                 d["answer_accuracy"], d["citation_precision"] or 0.0))
print("%-6s %10s %8s %12s %8s %9s" % ("size", "hybrid@10", "MRR", "+graph@10", "answers", "citation"))
for r in rows:
    print("%-6s %10.3f %8.3f %12.3f %8.3f %9.3f" % r)
mean = [sum(r[i] for r in rows) / len(rows) for i in range(1, 6)]
print("%-6s %10.3f %8.3f %12.3f %8.3f %9.3f" % ("mean", *mean))
PY
