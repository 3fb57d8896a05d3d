#!/usr/bin/env bash
# Fetches the real manual used by the figure benchmarks (bench/results/history/BENCHMARKS-journal-to-20261128.md, "A manual with
# screenshots"): the ExpEYES-17 user manual from Debian's expeyes-doc-en package, a 130-page
# pdfTeX document whose 56 "Figure N.M:" figures are mostly a wiring schematic next to a
# screenshot of the program, as raster images. Downloads the .deb with apt-get (no root, nothing
# installed) and unpacks it; prints the PDF's path on stdout. Idempotent.
#   bench/fetch_manual.sh [DIR]     (DIR defaults to $MANUAL_DIR, else /tmp/mmkg-manual)
set -euo pipefail

PACKAGE="${MANUAL_PACKAGE:-expeyes-doc-en}"
DIR="${1:-${MANUAL_DIR:-/tmp/mmkg-manual}}"
PDF="$DIR/root/usr/share/expeyes/doc/en-eyes.pdf"

if [[ ! -s "$PDF" ]]; then
  mkdir -p "$DIR"
  # apt-get download writes into the current folder; a stale .deb of another version is harmless.
  (cd "$DIR" && apt-get download "$PACKAGE" >&2) || {
    echo "fetch_manual: 'apt-get download $PACKAGE' failed (run 'apt-get update' first?)" >&2
    exit 1
  }
  deb="$(ls -t "$DIR"/"$PACKAGE"_*.deb | head -n 1)"
  dpkg -x "$deb" "$DIR/root"
fi
[[ -s "$PDF" ]] || { echo "fetch_manual: $PDF missing after unpacking $PACKAGE" >&2; exit 1; }
echo "$PDF"
