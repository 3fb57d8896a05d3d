#!/usr/bin/env bash
# Builds the web UI (ui/: TypeScript + Vite) into OUTDIR, which `mmkg serve --ui OUTDIR` serves.
#   bash scripts/build_ui.sh build/ui
# Idempotent: `npm ci` runs only when ui/node_modules is missing or was installed from another
# package-lock.json (its sha256 is kept in a stamp file), and the type check and the Vite build
# only when a source (ui/src, ui/index.html, the lock or the configs) is newer than OUTDIR.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
UI="$ROOT/ui"
OUT="$1"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "build_ui: '$tool' is not installed; the web UI needs Node.js 18 or later and npm: run make setup" >&2
    exit 1
  fi
done
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$NODE_MAJOR" -lt 18 ]; then
  echo "build_ui: Node.js $(node --version) is too old (the UI needs 18 or later): run make setup" >&2
  exit 1
fi

cd "$UI"
STAMP="node_modules/.mmkg-package-lock.sha256"
LOCK_HASH="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -d node_modules ] || [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$LOCK_HASH" ]; then
  echo "build_ui: npm ci (ui/package-lock.json)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$LOCK_HASH" >"$STAMP"
fi

# Up to date when OUTDIR/index.html is newer than every input.
if [ -f "$OUT/index.html" ] &&
  [ -z "$(find src index.html package.json package-lock.json tsconfig.json vite.config.ts -newer "$OUT/index.html" -print -quit)" ]; then
  echo "build_ui: $OUT is up to date"
  exit 0
fi

echo "build_ui: type check"
npx --no-install tsc --noEmit
echo "build_ui: vite build -> $OUT"
npx --no-install vite build --outDir "$OUT" --emptyOutDir --logLevel warn
touch "$OUT/index.html"
echo "build_ui: built $OUT"
