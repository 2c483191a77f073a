#!/usr/bin/env bash
# Session 14, last call: HEAD's GPU tests, all of them, then the .bz2 GPU tests (whose walk changed)
# under compute-sanitizer's racecheck, synccheck and initcheck (100 mutated files each).
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; parcomp --version | tail -1; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
timeout 240 parcomp-tests-gpu > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2; tail -n 4 "$O/gpu-tests.log" >&2
for tool in racecheck synccheck initcheck; do
  t=$([ $tool = racecheck ] && echo 170 || echo 80)
  PARCOMP_BZ2_FUZZ_FILES=100 timeout $t compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' > "$O/bz2-$tool.log" 2>&1
  echo "$tool exit $?" | tee -a "$O/env.txt" >&2; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$O/bz2-$tool.log" | tail -3 >&2
done
echo done >&2
