#!/usr/bin/env bash
# Builds llama.cpp's own benchmark, llama-bench, from the llama.cpp source inside the installed
# llama-cpp-python's source package (the same llama.cpp the local model server runs, built with
# the same default flags), so that bench/local_llm_bench.py --llama-bench can put llama.cpp's
# figures beside the server's. Only a bench needs it: mmkg never runs it.
#
#   bench/build_llama_bench.sh [DIR]     (default build/llama-bench; prints the binary's path)
set -euo pipefail
DIR=${1:-build/llama-bench}
PY=${MMKG_PYTHON:-python3}
VERSION=$($PY -c "import llama_cpp; print(llama_cpp.__version__)")
BIN="$DIR/llama.cpp/build/bin/llama-bench"
if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  if [ ! -d "$DIR/llama.cpp" ]; then
    $PY -m pip download --quiet --no-deps --no-binary :all: -d "$DIR" "llama-cpp-python==$VERSION" >&2
    tar -xzf "$DIR/llama_cpp_python-$VERSION.tar.gz" -C "$DIR"
    mv "$DIR/llama_cpp_python-$VERSION/vendor/llama.cpp" "$DIR/llama.cpp"
    rm -rf "$DIR/llama_cpp_python-$VERSION" "$DIR/llama_cpp_python-$VERSION.tar.gz"
  fi
  cmake -S "$DIR/llama.cpp" -B "$DIR/llama.cpp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DBUILD_SHARED_LIBS=OFF >&2
  ninja -C "$DIR/llama.cpp/build" llama-bench >&2
fi
echo "$BIN"
