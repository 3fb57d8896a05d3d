#!/usr/bin/env python3
"""Merged entities of a store's graph, for a person to check (issue 13).

    python3 bench/graph_entities/merges.py MMKG_BIN STORE

Prints every entity whose aliases are not all spelling variants of its name: an alias that is not
an acronym and whose letters (lower-cased, without spaces, hyphens and a plural s) differ from the
name's. These are the merges resolution made beyond case, plural, hyphen and spacing; each line is
one to judge (same thing or not). Then `graph entity` for names that must not resolve to another
entity ("cross-attention", "additive attention").
"""
import json
import re
import subprocess
import sys


def norm(s):
    s = re.sub(r"[^a-z0-9]", "", s.lower())
    return s[:-1] if s.endswith("s") else s


def acronym(s):
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9-]*", s) is not None and len(s) <= 10


def main():
    mmkg, store = sys.argv[1:3]
    raw = subprocess.run([mmkg, "graph", "export", "--format", "jsonl", "--store", store],
                         check=True, capture_output=True, text=True).stdout
    n = 0
    for line in raw.splitlines():
        o = json.loads(line)
        if o.get("kind") != "entity":
            continue
        other = [a for a in o["aliases"] if a != o["name"] and not acronym(a) and norm(a) != norm(o["name"])]
        if other:
            n += 1
            print(f"{o['name']}\t{' | '.join(other)[:160]}")
    print(f"# {n} entities with non-variant aliases")
    for name in sys.argv[3:]:
        r = subprocess.run([mmkg, "graph", "entity", name, "--store", store], capture_output=True, text=True)
        first = (r.stdout or r.stderr).strip().splitlines()[:1]
        print(f"# graph entity {name!r}: {first[0] if first else ''}")


if __name__ == "__main__":
    main()
