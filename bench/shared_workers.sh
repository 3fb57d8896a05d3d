#!/bin/bash
# (bench/shared_workers.sh, issue 35 item 4: ingest with N workers at once into a shared store;
# the input folder, the binary and the Neo4j state folder are the paths used for the 2026-11-28 run)
# run.sh N: N workers `mmkg ingest /tmp/wk/in --extract none` into an emptied shared store at once.
N=$1; B=/work/main/build/mmkg; H=$(cat /work/n4j.url); U="neo4j://${H#http://}"
curl -s -XPOST $H/db/neo4j/query/v2 -H 'Content-Type: application/json' -d '{"statement":"MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"}' >/dev/null
curl -s -XPOST $H/db/neo4j/query/v2 -H 'Content-Type: application/json' -d '{"statement":"DROP INDEX mmkg_chunk_embedding IF EXISTS"}' >/dev/null
rm -rf /tmp/wk/c*
neo_pid=$(cat /work/n4j/neo4j.pid)
neo_before=$(awk '{print $14+$15}' /proc/$neo_pid/stat)
t0=$(date +%s.%N)
for i in $(seq 1 $N); do
  /usr/bin/time -f "%U %S" -o /tmp/wk/time$i $B ingest /tmp/wk/in --store $U --cache /tmp/wk/c$i --extract none --json > /tmp/wk/out$i.json 2>/tmp/wk/err$i &
done
wait
t1=$(date +%s.%N)
neo_after=$(awk '{print $14+$15}' /proc/$neo_pid/stat)
python3 - "$N" "$t0" "$t1" "$neo_before" "$neo_after" <<'PY'
import json, sys
n, t0, t1, nb, na = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cpu = 0; docs = pages = chunks = 0
for i in range(1, n + 1):
    u, s = map(float, open(f"/tmp/wk/time{i}").read().split()[-2:])
    cpu += u + s
    r = json.load(open(f"/tmp/wk/out{i}.json"))
    docs += r["documents"]; pages += r["pages"]; chunks += r["chunks"]
neo = (na - nb) / 100.0
wall = t1 - t0
print(f"workers={n} wall={wall:.1f}s docs={docs} pages={pages} chunks={chunks} mmkg_cpu={cpu:.1f}s "
      f"neo4j_cpu={neo:.1f}s pages/s={pages/wall:.2f} mmkg_cpu_s/page={cpu/pages:.3f} total_cpu_s/page={(cpu+neo)/pages:.3f}")
PY
