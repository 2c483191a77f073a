#!/usr/bin/env bash
# What a process's exit costs on this host's GPUs (parcomp-exit-cost, beside the binaries in BIN):
# one device and two, no memory, pinned host memory (cudaMallocHost, or cudaHostRegister'd), device
# memory, and each with its release timed before the exit (on two devices also each device's at once). One JSON line a run on standard output.
#
#   scripts/maint/exit-cost.sh [--bin DIR] [--runs N] [--pinned SIZE] [--device-bytes SIZE]
set -euo pipefail
bin=$(cd "$(dirname "$0")/../.." && pwd)/build/bench runs=3 pinned=1G devbytes=8G
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --pinned) pinned=$2; shift 2 ;;
    --device-bytes) devbytes=$2; shift 2 ;;
    *) sed -n '2,6p' "$0" >&2; exit 2 ;;
  esac
done
n=$( (nvidia-smi -L 2>/dev/null || true) | wc -l)
sets=("0"); [ "$n" -ge 2 ] && sets+=("0,1")
for d in "${sets[@]}"; do
  for mem in "" "--pinned $pinned" "--pinned $pinned --register" "--device-bytes $devbytes" "--pinned $pinned --device-bytes $devbytes"; do
    rels=("" --release); [ "$d" != 0 ] && rels+=(--release-parallel)
    for rel in "${rels[@]}"; do
      # shellcheck disable=SC2086
      "$bin/parcomp-exit-cost" --devices "$d" $mem $rel --runs "$runs"
    done
  done
done
