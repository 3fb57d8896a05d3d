#!/usr/bin/env python3
"""Compares two runs of mmkg_ocr_bench (before and after a change to OCR) image by image.

For every image of the baseline, how many of its words (as a multiset, case-sensitive) the
other run kept; overall, the share of the baseline's words kept, the images skipped and the CPU
seconds of each run. Lists the images that lost the most words.
OCR of small screenshot text is noisy (the same image read at another scale gives other junk
tokens: "26]" for "26}"), so with --vocab FILE (one lower-case word a line, e.g. the words of the
documents' own text layer) the share is also given for the baseline's words of 3 or more letters
or digits found in FILE, lower-cased: the words a search can match.
  bench/ocr_compare.py BEFORE.tsv AFTER.tsv [--vocab FILE] [--worst 15]
"""
import argparse
import collections
import csv
import re
import sys


def load(path):
    csv.field_size_limit(sys.maxsize)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    # The same image can appear more than once (a logo, a repeated screenshot): key by order too.
    seen = collections.Counter()
    out = {}
    for r in rows:
        k = (r["file"], r["image"])
        seen[k] += 1
        out[k + (seen[k],)] = r
    return out


def words(row):
    t = row["text"]
    return [] if t.startswith("ERROR: ") else t.replace(" | ", " ").split()


def known(ws, vocab):
    out = []
    for w in ws:
        out += [t for t in re.findall(r"\w{3,}", w.lower()) if t in vocab]
    return out


def kept_share(before, after, pick):
    kept = base = 0
    for k, rb in before.items():
        wb = collections.Counter(pick(words(rb)))
        wa = collections.Counter(pick(words(after[k]))) if k in after else collections.Counter()
        kept += sum((wb & wa).values())
        base += sum(wb.values())
    return kept, base


def totals(rows):
    return {"images": len(rows), "skipped": sum(int(r["skipped"]) for r in rows.values()),
            "prepare_s": sum(float(r["prepare_ms"]) for r in rows.values()) / 1e3,
            "recognise_s": sum(float(r["recognise_ms"]) for r in rows.values()) / 1e3,
            "words": sum(len(words(r)) for r in rows.values())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--worst", type=int, default=15)
    ap.add_argument("--vocab")
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    kept_total = base_total = 0
    losses = []
    for k, rb in before.items():
        wb = collections.Counter(words(rb))
        wa = collections.Counter(words(after[k])) if k in after else collections.Counter()
        kept = sum((wb & wa).values())
        base = sum(wb.values())
        kept_total += kept
        base_total += base
        if base > kept:
            losses.append((base - kept, base, k, after.get(k, {}).get("skipped", "?")))
    for name, rows in (("before", before), ("after", after)):
        t = totals(rows)
        print(f"{name}: {t['images']} images, {t['skipped']} skipped, CPU {t['prepare_s']:.2f} s prepare + "
              f"{t['recognise_s']:.2f} s recognise, {t['words']} words")
    missing = len(set(before) - set(after))
    print(f"baseline words kept: {kept_total}/{base_total} = {kept_total / max(1, base_total):.1%}"
          + (f" ({missing} baseline images missing from the second run)" if missing else ""))
    if a.vocab:
        with open(a.vocab) as f:
            vocab = set(f.read().split())
        k, b = kept_share(before, after, lambda ws: known(ws, vocab))
        print(f"baseline words in the vocabulary kept: {k}/{b} = {k / max(1, b):.1%}")
    images_with_words = sum(1 for r in before.values() if words(r))
    images_all_lost = sum(1 for lost, base, _, _ in losses if lost == base)
    print(f"baseline images with words: {images_with_words}; of those, lost every word: {images_all_lost}")
    for lost, base, k, skipped in sorted(losses, reverse=True)[: a.worst]:
        print(f"  -{lost}/{base} {k[0]} {k[1]} skipped={skipped}: {before[k]['text'][:100]}")


if __name__ == "__main__":
    main()
