#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or older than the lock file, then builds, unless the build
# is newer than every source: a start with nothing changed goes straight to the program. `--force` always builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2
fi
stamp=dist/.build-stamp
# a directory's time changes when a file in it is added, removed or renamed, so -newer sees those too
if [ "${1:-}" != --force ] && [ -f "$stamp" ] && [ -f dist/bin/apiserver.js ] && [ ! node_modules/.package-lock.json -nt "$stamp" ] &&
  [ -z "$(find src test bench scripts tsconfig.json package.json -newer "$stamp" -print -quit)" ]; then
  exit 0
fi
# the stamp takes the time the build started: a source saved during the build is seen next time
touch "$stamp.next" 2>/dev/null || { mkdir -p dist && touch "$stamp.next"; }
npx tsc -p tsconfig.json
node scripts/bundle.mjs
mv "$stamp.next" "$stamp"
