#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or older than the lock file, then builds.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2
fi
npx tsc -p tsconfig.json
node scripts/bundle.mjs
