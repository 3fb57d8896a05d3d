#!/usr/bin/env bash
# Fetches the OCR benchmark set (docs/BENCHMARKS.md, "Figures and OCR"): eight PDFs from Debian
# packages, 709 pages, of which 228 raster figures reach OCR. The issue that asked for cheaper OCR
# measured "eight Debian PDFs (704 pages, 198 images OCR'd)" without naming them; this is the
# closest set found in Debian's documentation packages:
#   expeyes-doc-en  en-eyes.pdf (130 p.), en-eyesj.pdf (65 p.), en-eyesj-progman.pdf (23 p.)
#   expeyes-doc-fr  fr-eyes.pdf (115 p.), fr-eyesj.pdf (105 p.), fr-eyesj-progman.pdf (24 p.)
#                   (screenshots, photos, schematics and plots as raster images)
#   bash-doc        bashref.pdf (196 p., text only)
#   r-cran-lme4     lmer.pdf (51 p., vector plots: rendered, not OCR'd)
# Downloads the .debs with `apt-get download` (nothing is installed), unpacks them with dpkg -x
# and copies the PDFs flat into DIR. Idempotent: does nothing when all eight are there. Prints DIR.
#   bench/fetch_ocr_set.sh [DIR]     (DIR defaults to $OCR_SET_DIR, else /tmp/mmkg-ocr-set)
set -euo pipefail

DIR="${1:-${OCR_SET_DIR:-/tmp/mmkg-ocr-set}}"
declare -A SRC=(
  [en-eyes.pdf]=usr/share/expeyes/doc/en-eyes.pdf
  [en-eyesj.pdf]=usr/share/expeyes/doc/en-eyesj.pdf
  [en-eyesj-progman.pdf]=usr/share/expeyes/doc/en-eyesj-progman.pdf
  [fr-eyes.pdf]=usr/share/expeyes/doc/fr-eyes.pdf
  [fr-eyesj.pdf]=usr/share/expeyes/doc/fr-eyesj.pdf
  [fr-eyesj-progman.pdf]=usr/share/expeyes/doc/fr-eyesj-progman.pdf
  [bashref.pdf]=usr/share/doc/bash/bashref.pdf
  [lme4-lmer.pdf]=usr/lib/R/site-library/lme4/doc/lmer.pdf
)
PACKAGES=(expeyes-doc-en expeyes-doc-fr bash-doc r-cran-lme4)

have_all() {
  local f
  for f in "${!SRC[@]}"; do [[ -s "$DIR/$f" ]] || return 1; done
}

mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
if ! have_all; then
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/fetch_ocr_set.XXXXXX")"
  trap 'rm -rf "$TMP"' EXIT
  APT_OPTS=()
  # as root, apt cannot drop to the _apt user for its download folder; skip that (harmless) try
  if [[ "$(id -u)" -eq 0 ]]; then APT_OPTS=(-o APT::Sandbox::User=root); fi
  (cd "$TMP" && apt-get download -q ${APT_OPTS[@]+"${APT_OPTS[@]}"} "${PACKAGES[@]}" >&2) || {
    echo "fetch_ocr_set: 'apt-get download ${PACKAGES[*]}' failed; run 'apt-get update' first" >&2
    exit 1
  }
  for deb in "$TMP"/*.deb; do dpkg -x "$deb" "$TMP/x"; done
  for f in "${!SRC[@]}"; do
    [[ -s "$TMP/x/${SRC[$f]}" ]] || { echo "fetch_ocr_set: ${SRC[$f]} is not in the downloaded packages" >&2; exit 1; }
    cp "$TMP/x/${SRC[$f]}" "$DIR/$f"
  done
fi
echo "$DIR"
