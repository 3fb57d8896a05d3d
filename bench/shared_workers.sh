#!/bin/bash
# bench/shared_workers.sh N INPUT_DIR NEO4J_STATE_DIR [WORK_DIR]
#
# Ingest with N workers at once into a shared store (issue 35, item 4): empties the Neo4j
# database of a server started with `scripts/neo4j.sh start NEO4J_STATE_DIR`, starts N
# `mmkg ingest INPUT_DIR --extract none` with caches of their own under WORK_DIR (default a
# temporary folder), waits for all, and prints wall time, pages, chunks, the workers' CPU
# (user+sys, /usr/bin/time), the Neo4j JVM's CPU (/proc/PID/stat) and CPU seconds per page.
# MMKG_BIN: the binary (default build/mmkg).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 N INPUT_DIR NEO4J_STATE_DIR [WORK_DIR]" >&2; exit 2; }
N=$1 IN=$2 STATE=$3
WORK=${4:-$(mktemp -d)}
B=${MMKG_BIN:-build/mmkg}
H=$(bash "$(dirname "$0")/../scripts/neo4j.sh" status "$STATE")
U="neo4j://${H#http://}"
q() { curl -sf -XPOST "$H/db/neo4j/query/v2" -H 'Content-Type: application/json' -d "{\"statement\":\"$1\"}" >/dev/null; }
q "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
q "DROP INDEX mmkg_chunk_embedding IF EXISTS"
rm -rf "$WORK"/c* "$WORK"/out* "$WORK"/time* "$WORK"/err*
mkdir -p "$WORK"
neo_pid=$(cat "$STATE/neo4j.pid")
ticks() { awk '{print $14+$15}' "/proc/$neo_pid/stat"; }
neo_before=$(ticks)
t0=$(date +%s.%N)
for i in $(seq 1 "$N"); do
  /usr/bin/time -f "%U %S" -o "$WORK/time$i" "$B" ingest "$IN" --store "$U" --cache "$WORK/c$i" --extract none \
    --json >"$WORK/out$i.json" 2>"$WORK/err$i" &
done
wait
t1=$(date +%s.%N)
neo_after=$(ticks)
python3 - "$N" "$t0" "$t1" "$neo_before" "$neo_after" "$(getconf CLK_TCK)" "$WORK" <<'PY'
import json, sys
n, t0, t1, nb, na, hz, work = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
cpu = 0.0
docs = pages = chunks = 0
for i in range(1, n + 1):
    u, s = map(float, open(f"{work}/time{i}").read().split()[-2:])
    cpu += u + s
    r = json.load(open(f"{work}/out{i}.json"))
    docs += r["documents"]
    pages += r["pages"]
    chunks += r["chunks"]
neo = (na - nb) / hz
wall = t1 - t0
print(f"workers={n} wall={wall:.1f}s docs={docs} pages={pages} chunks={chunks} mmkg_cpu={cpu:.1f}s "
      f"neo4j_cpu={neo:.1f}s pages/s={pages / wall:.2f} total_cpu_s/page={(cpu + neo) / max(pages, 1):.3f}")
PY
