#!/usr/bin/env bash
# Session 16, check at HEAD (30abedc: the inverse MTF in shared memory of 9f138f8, the per-device warm-up): every GPU test; the GPU .bz2 decoder fuzzed under memcheck with
# 10,000 mutated files (#14's goal); the .bz2 GPU tests under racecheck (small sizes), synccheck and
# initcheck; and two mutants of 9f138f8's mtf_local_kernel (the carried byte between words, the top word's mask),
# each built from 9f138f8 with one line changed: their .bz2 GPU tests must fail.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/mut
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; parcomp --version | tail -1; nproc; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
san() { tool=$1; t=$2; shift 2
  timeout $t compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 50 "$@" > "$O/bz2-$tool.log" 2>&1
  echo "$tool exit $?" >> "$O/san.txt"; }
( PARCOMP_BZ2_FUZZ_FILES=10000 san memcheck 520 parcomp-tests-gpu --gtest_filter='Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts' ) &
( PARCOMP_TEST_SMALL=1 PARCOMP_BZ2_FUZZ_FILES=100 san racecheck 400 --kernel-name-exclude kns=cub:: parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' ) &
( PARCOMP_BZ2_FUZZ_FILES=200 san synccheck 400 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' ) &
( PARCOMP_BZ2_FUZZ_FILES=200 san initcheck 400 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:-*Encoder*' ) &
timeout 300 parcomp-tests-gpu > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2; tail -n 4 "$O/gpu-tests.log" >&2
for m in mtf-carry mtf-top-mask; do
  xz -dc "$D/tests-$m.xz" > /tmp/mut/t && chmod +x /tmp/mut/t
  LD_LIBRARY_PATH=$B timeout 150 /tmp/mut/t --gtest_filter='Bz2Gpu.*' > "$O/mutant-$m.log" 2>&1; rc=$?
  echo "mutant $m: exit $rc ($([ $rc -ne 0 ] && echo killed || echo survived)); $(grep -c '^\[  FAILED  \] Bz2Gpu' "$O/mutant-$m.log") failed: $(grep '^\[  FAILED  \] Bz2Gpu' "$O/mutant-$m.log" | sed 's/.*\] //; s/ (.*//' | sort -u | tr '\n' ' ')" | tee -a "$O/mutants.txt" >&2
  gzip "$O/mutant-$m.log"
done
wait
cat "$O/san.txt" | tee -a "$O/env.txt" >&2
for t in memcheck racecheck synccheck initcheck; do grep -E "mutated files|ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$O/bz2-$t.log" | tail -3 >&2; gzip "$O/bz2-$t.log"; done
gzip "$O/gpu-tests.log"
(cd "$O" && tar cf logs.tar *.log.gz && rm -f *.log.gz)
echo done >&2
