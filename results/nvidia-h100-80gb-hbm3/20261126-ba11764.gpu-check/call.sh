#!/usr/bin/env bash
# Session 15, first call: HEAD's GPU tests, all of them, then the .bz2 GPU tests (whose walk
# changed in 5667e68) under racecheck (small sizes), synccheck and initcheck, at once; the walk's SASS.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1; parcomp --version | tail -1; nproc; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
san() { tool=$1; t=$2; shift 2
  timeout $t compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 50 "$@" > "$O/bz2-$tool.log" 2>&1
  echo "$tool exit $?" >> "$O/san.txt"; }
( PARCOMP_TEST_SMALL=1 PARCOMP_BZ2_FUZZ_FILES=100 san racecheck 330 --kernel-name-exclude kns=cub:: parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' ) &
( PARCOMP_BZ2_FUZZ_FILES=200 san synccheck 300 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' ) &
( PARCOMP_BZ2_FUZZ_FILES=200 sleep 1; PARCOMP_BZ2_FUZZ_FILES=200 san initcheck 300 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:-*Encoder*' ) &
timeout 300 parcomp-tests-gpu > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2; tail -n 4 "$O/gpu-tests.log" >&2
(which cuobjdump && cuobjdump -sass "$B/parcomp" | awk '/Function : .*group_starts_kernelILi12ELj256E/{p=1} p&&/Function : /&&!/group_starts_kernelILi12ELj256E/{p=0} p' > "$O/walk12.sass") >&2 2>&1
wait
cat "$O/san.txt" | tee -a "$O/env.txt" >&2
for t in racecheck synccheck initcheck; do grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$O/bz2-$t.log" | tail -3 >&2; gzip "$O/bz2-$t.log"; done
gzip "$O/gpu-tests.log"; wc -l "$O/walk12.sass" >&2
echo done >&2
