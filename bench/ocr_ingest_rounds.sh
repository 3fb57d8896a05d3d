#!/usr/bin/env bash
# Default ingest against --no-ocr and --no-figures, for one or more builds, in interleaved rounds
# (docs/BENCHMARKS.md, "Figures and OCR"): each run ingests DIR into a fresh store with the
# default embedder and graph, timed by /usr/bin/time (wall, user and system CPU seconds). One
# TSV line per run on stdout: build, flags, round, wall, user, sys, images OCR'd, skipped, pages.
#   bench/ocr_ingest_rounds.sh DIR ROUNDS MMKG_BINARY...
set -euo pipefail
DIR=$1 ROUNDS=$2
shift 2
TMP="$(mktemp -d "${TMPDIR:-/tmp}/ocr_rounds.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
printf 'build\tflags\tround\twall_s\tuser_s\tsys_s\tocr_images\tocr_skipped\tpages\n'
for round in $(seq 1 "$ROUNDS"); do
  for bin in "$@"; do
    for flags in "" "--no-ocr" "--no-figures"; do
      rm -rf "$TMP/store"
      # shellcheck disable=SC2086  # flags is one flag or none
      /usr/bin/time -f "%e %U %S" -o "$TMP/time" "$bin" ingest "$DIR" --store "$TMP/store" --json --no-progress \
        $flags > "$TMP/out.json" 2> "$TMP/err"
      read -r wall user sys < "$TMP/time"
      ocr="$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); o=j["ocr"]; print(o["images"], o.get("skipped", "-"), j["pages"])' "$TMP/out.json")"
      read -r images skipped pages <<< "$ocr"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bin" "${flags:-default}" "$round" "$wall" "$user" "$sys" \
        "$images" "$skipped" "$pages"
    done
  done
done
