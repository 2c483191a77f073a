#!/usr/bin/env bash
# Profile the GPU benchmarks that match a filter with Nsight Compute: one timed iteration each
# (--parcomp_once), only the kernels inside the benchmark's NVTX range (not its untimed validation
# run), with duration, DRAM bytes, achieved bandwidth and occupancy per kernel.
#
#   scripts/profile.sh BENCH_FILTER [--bin DIR] [--out DIR] [-- extra ncu args]
#
# Writes DIR/profile.json and DIR/profile.md (default DIR: ./profile-out) and prints the markdown.
# Needs ncu on PATH and a GPU; leaves the clocks alone (--clock-control none).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { sed -n '2,9p' "$0"; exit 2; }
filter=$1; shift
bin=""
out=$PWD/profile-out
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "profile: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$bin" ]; then
  for b in "$here/parcomp-bench" "$here/../build/bench/parcomp-bench" "$here/../build/bundle/parcomp-bench"; do
    [ -x "$b" ] && { bin=$b; break; }
  done
else
  bin="$bin/parcomp-bench"
fi
[ -x "${bin:-}" ] || { echo "profile: parcomp-bench not found (build it or pass --bin DIR)" >&2; exit 2; }
command -v ncu >/dev/null || { echo "profile: ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
summary=$here/ncu_summary.py
[ -f "$summary" ] || summary=$here/../scripts/ncu_summary.py

mkdir -p "$out"
mapfile -t names < <("$bin" --benchmark_list_tests --benchmark_filter="$filter" | sed -n 's|/manual_time$||p')
[ ${#names[@]} -gt 0 ] || { echo "profile: no GPU benchmark matches '$filter'" >&2; exit 1; }
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers,launch__registers_per_thread,launch__grid_size,launch__block_size
# The SMs' global-memory requests as L2 sees them (32-byte sectors), what stays in L2 included.
l2_metrics=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
csvs=()
for name in "${names[@]}"; do
  range="${name//\//:}"
  csv="$out/$(echo "$name" | tr '/=' '__').csv"
  echo "==> ncu: $name" >&2
  run_ncu() {
    ncu --nvtx --nvtx-include "parcomp-bench@$range/" --clock-control none --metrics "$1" \
        --csv --page raw "${extra[@]}" \
        "$bin" --benchmark_filter="^$name/" --parcomp_once > "$csv.raw" 2> "$csv.log"
  }
  run_ncu "$metrics,$l2_metrics" || { echo "profile: no L2 sector metrics here; DRAM only" >&2; run_ncu "$metrics"; } \
    || { echo "profile: ncu failed for $name (see $csv.log)" >&2; exit 1; }
  grep '^"' "$csv.raw" > "$csv" || true
  rm -f "$csv.raw"
  csvs+=("$name=$csv")
done
python3 "$summary" --out "$out" "${csvs[@]}"
