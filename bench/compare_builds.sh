#!/usr/bin/env bash
# Side-by-side speed of two builds of mmkg (e.g. before and after a refactor), measured in the
# same run, alternating old and new so that machine noise hits both alike.
#
#   bench/compare_builds.sh OLD_BUILD_DIR NEW_BUILD_DIR [ROUNDS] > report.md
#
# Each build dir must hold mmkg and bench/mmkg_{retrieve,search}_bench. Measures, ROUNDS times
# each (default 5), median reported:
#   ingest      wall time of `mmkg ingest examples/corpus` into a fresh store (embeddings, graph)
#   eval        wall time of `mmkg eval dev_qa.jsonl --answers --mode hybrid` (24 questions, one
#               process: model load, graph load, retrieval, answers)
#   retrieve    mmkg_retrieve_bench: the RAG retriever over the dev questions, sequential and
#               parallel (ms per question)
#   search      mmkg_search_bench: BM25 latency over the store (median ms per query)
# Needs ../shared/eval/dev_qa.jsonl beside the repository. Prints a Markdown table.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd); ROUNDS=${3:-5}
QA="$ROOT/../shared/eval/dev_qa.jsonl"
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
PY=${PYTHON:-python3}

now() { date +%s.%N; }
median() { $PY -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
declare -A R
add() { R[$1]="${R[$1]:-} $2"; }

for build in OLD NEW; do  # one store per build for the query benches
  dir=${!build}
  "$dir/mmkg" ingest "$ROOT/examples/corpus" --store "$WORK/$build" --no-progress --json >/dev/null
done
for ((i = 0; i < ROUNDS; i++)); do
  for build in OLD NEW; do
    dir=${!build}
    rm -rf "$WORK/ingest"
    t0=$(now); "$dir/mmkg" ingest "$ROOT/examples/corpus" --store "$WORK/ingest" --no-progress --json >/dev/null
    add "$build.ingest" "$($PY -c "print($(now) - $t0)")"
    t0=$(now); "$dir/mmkg" eval "$QA" --store "$WORK/$build" --answers --mode hybrid --json >/dev/null
    add "$build.eval" "$($PY -c "print($(now) - $t0)")"
    "$dir/bench/mmkg_retrieve_bench" --store "$WORK/$build" --questions "$QA" --runs 3 --json "$WORK/r.json" >/dev/null
    add "$build.retrieve_seq" "$($PY -c "import json; print(json.load(open('$WORK/r.json'))['sequential_ms_per_question'])")"
    add "$build.retrieve_par" "$($PY -c "import json; print(json.load(open('$WORK/r.json'))['parallel_ms_per_question'])")"
    "$dir/bench/mmkg_search_bench" --store "$WORK/$build" --repeat 3 --json "$WORK/s.json" >/dev/null
    add "$build.search" "$($PY -c "import json; d=json.load(open('$WORK/s.json')); print(d['sets'][0]['p50_ms'])")"
  done
done
echo "| measure (median of $ROUNDS) | old | new | new/old |"
echo "| --- | --- | --- | --- |"
for m in ingest eval retrieve_seq retrieve_par search; do
  o=$(median ${R[OLD.$m]}); n=$(median ${R[NEW.$m]})
  unit=$([ "$m" = ingest ] || [ "$m" = eval ] && echo s || echo ms)
  printf '| %s (%s) | %.3f | %.3f | %.3f |\n' "$m" "$unit" "$o" "$n" "$($PY -c "print($n / $o)")"
done
