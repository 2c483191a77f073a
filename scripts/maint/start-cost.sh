#!/usr/bin/env bash
# What CUDA's start costs a fresh process on this host's GPUs (parcomp-start-cost, beside the
# binaries in BIN): each context's ready time on one device and on two (made at once, and one after
# the other), whether making one holds up the other device's CUDA calls (--probe), and the time to pin
# host memory. One JSON line a run on standard output.
#
#   scripts/maint/start-cost.sh [--bin DIR] [--runs N] [--pinned SIZE]
set -euo pipefail
bin=$(cd "$(dirname "$0")/../.." && pwd)/build/bench runs=3 pinned=256M
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --pinned) pinned=$2; shift 2 ;;
    *) sed -n '2,7p' "$0" >&2; exit 2 ;;
  esac
done
n=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
"$bin/parcomp-start-cost" --devices 0 --probe --pinned "$pinned" --runs "$runs"
if [ "$n" -ge 2 ]; then
  for order in "" --sequential; do
    # shellcheck disable=SC2086
    "$bin/parcomp-start-cost" --devices 0,1 $order --probe --pinned "$pinned" --runs "$runs"
  done
fi
