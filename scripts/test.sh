#!/usr/bin/env bash
# Build, then run every test: ctest (CPU tests; GPU tests run on a GPU and are reported as
# skipped without one; the bench smoke test), the Python tests (plots, dataset fetch) and libFuzzer
# on the .bz2 reader and writer for PARCOMP_FUZZ_SECONDS each (default 30; 0 skips; skipped
# without clang).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_deps
build_all
say "ctest"
status=0
ctest --test-dir "$PARCOMP_BUILD" --output-on-failure --parallel "$(nproc)" || status=1
say "pytest"
PARCOMP_BUILD="$PARCOMP_BUILD" python3 -m pytest -q "$PARCOMP_ROOT/tests/python" || status=1
fuzz_seconds=${PARCOMP_FUZZ_SECONDS:-30}
if [ "$fuzz_seconds" != 0 ]; then
  bash "$PARCOMP_ROOT/scripts/fuzz.sh" --seconds "$fuzz_seconds" || status=1
fi
exit $status
