#!/usr/bin/env bash
# Graph ingest at several corpus sizes: the first N passages of 2WikiMultihopQA (corpus order;
# the files ../shared/eval/2wiki/make_2wiki.py writes), each ingested into a fresh store with the
# rule graph and with --extract none, one after the other. Prints wall and user seconds, the
# graph's phases (ingest --json) and the store's size, one line per run.
#
#   bench/graph_ingest_scale.sh BIN CORPUS_JSON DOCS_DIR N [N ...]
#   e.g. bench/graph_ingest_scale.sh build/mmkg ../shared/eval/2wiki/corpus.json /tmp/2wiki/docs 1000 2000 6119
set -euo pipefail
bin=$1 corpus=$2 docs=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# make_2wiki.py's file names, in corpus order.
mapfile -t files < <(python3 - "$corpus" <<'PY'
import json, re, sys
used = set()
for i, p in enumerate(json.load(open(sys.argv[1]))):
    name = re.sub(r"[/\\\x00]", "_", p["title"])[:200]
    name = (name if name + ".md" not in used else f"{name} ({i})") + ".md"
    used.add(name)
    print(name)
PY
)
for n in "$@"; do
  sub="$work/sub$n"
  mkdir -p "$sub"
  for f in "${files[@]:0:$n}"; do [ -e "$docs/$f" ] && ln -sf "$(realpath "$docs/$f")" "$sub/$f"; done
  for ex in rules none; do
    store="$work/store-$n-$ex"
    /usr/bin/time -f "%e %U" -o "$work/time" "$bin" ingest "$sub" --follow-symlinks --store "$store" --extract "$ex" \
      --no-progress --json > "$work/out.json"
    read -r wall user < "$work/time"
    python3 - "$work/out.json" "$n" "$ex" "$wall" "$user" "$(du -sm "$store" | cut -f1)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); n, ex, wall, user, mb = sys.argv[2:]
g = d.get("graph") or {}
phases = " ".join(f"{k[:-8]}={g[k]:.1f}" for k in ("extract_seconds", "resolve_seconds", "write_seconds") if k in g)
print(f"n={n} extract={ex} wall={wall}s user={user}s graph={g.get('seconds', 0):.1f}s {phases} "
      f"entities={g.get('entities', 0)} store={mb}MB")
PY
    rm -rf "$store"
  done
done
