#!/usr/bin/env python3
"""Entity statistics and a reproducible random sample of 50 entities of a store's graph (issue 13).

    python3 bench/graph_entities/sample.py MMKG_BIN STORE OUT.tsv [--seed 13]

Runs `MMKG_BIN graph export --format jsonl --store STORE`, prints the entity count, the count per
type and the entities of the most frequent single common words, and writes OUT.tsv with the sample:
name, type, aliases, and an empty `ok` column that a person fills with 1 (a real domain term or name
of the right type) or 0. Precision = mean of the column. The same seed picks the same positions.
"""
import collections
import json
import random
import subprocess
import sys


def common_words(path="/usr/share/wordnet/cntlist.rev", rank=2800):
    """The 2,800 most frequent single-word lemmas of WordNet's SemCor counts (as common_words.cc)."""
    counts = collections.Counter()
    try:
        for line in open(path):
            parts = line.split()
            if len(parts) != 3 or "%" not in parts[0]:
                continue
            lemma = parts[0].split("%")[0]
            if "_" not in lemma:
                counts[lemma] += int(parts[2])
    except OSError:
        return set()
    top = counts.most_common()
    if not top:
        return set()
    floor = top[min(rank, len(top)) - 1][1]
    return {w for w, n in top if n >= floor}


def main():
    args = sys.argv[1:]
    seed = 13
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    mmkg, store, out = args
    raw = subprocess.run([mmkg, "graph", "export", "--format", "jsonl", "--store", store],
                         check=True, capture_output=True, text=True).stdout
    ents, rels = [], []
    for line in raw.splitlines():
        if not line.strip():
            continue
        o = json.loads(line)
        kind = o.get("kind") or o.get("type_of") or ("entity" if "aliases" in o else "relation" if "src" in o else "")
        if kind == "entity":
            ents.append(o)
        elif kind == "relation":
            rels.append(o)
    types = collections.Counter(e.get("type", "") for e in ents)
    common = common_words()
    generic = sorted(e["name"] for e in ents
                     if " " not in e["name"] and "-" not in e["name"] and e["name"].islower()
                     and (e["name"] in common or e["name"].rstrip("s") in common))
    rtypes = collections.Counter(r.get("type", "") for r in rels)
    print(json.dumps({"entities": len(ents), "types": types, "relations": len(rels), "relation_types": rtypes,
                      "single_common_words": len(generic), "examples": generic[:40]}))
    ents.sort(key=lambda e: e["id"])
    rnd = random.Random(seed)
    sample = rnd.sample(ents, min(50, len(ents)))
    with open(out, "w") as f:
        f.write("ok\tname\ttype\taliases\n")
        for e in sample:
            aliases = "|".join(a for a in e.get("aliases", []) if a != e["name"])[:120]
            f.write(f"\t{e['name']}\t{e.get('type', '')}\t{aliases}\n")


if __name__ == "__main__":
    main()
