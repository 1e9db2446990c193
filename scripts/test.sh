#!/usr/bin/env bash
# Runs the whole test suite on the compiled output: unit and contract tests beside the sources,
# integration and end-to-end tests under test/. Installs the real parts the tests use when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
mapfile -t files < <(find dist/src dist/test -name '*.test.js' | sort)
# --test-force-exit: a file whose tests are done ends even if a handle it forgot would keep it alive
exec node --test --test-concurrency=2 --test-timeout=1800000 --test-force-exit "${files[@]}"
