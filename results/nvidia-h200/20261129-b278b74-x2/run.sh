#!/usr/bin/env bash
# b278b74 on two H200s: every GPU test; the in-flight test on a build with seven batches a GPU (it must fail). Writes $OUT/v.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
mkdir -p /tmp/v; tar xJf .data/mini14.tar.xz -C /tmp/v || exit 2
B=/tmp/v/bundle; O=$OUT/v3; mkdir -p $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $(nproc)"; git log -1 --format=%H; git status --porcelain | head -3; parcomp --version | tail -1; } > $O/env.txt; cat $O/env.txt
timeout 240 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(el) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|OK \] EngineGpu.Bz2Compression" $O/tests.log | tail -6
timeout 60 parcomp-tests-gpu-mut --gtest_filter='EngineGpu.Bz2CompressionHoldsFiveBatchesInFlight' > $O/tests-mut.log 2>&1; echo "seven batches a GPU: rc $? (must fail)"; grep -E "Expected|FAILED  \]|PASSED" $O/tests-mut.log | head -4
for k in 1 2 3; do parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2CompressionHoldsFiveBatchesInFlight' 2>&1 | grep -E "OK \]|FAILED  \]|Expected" | head -2; done
gzip -f $O/*.log; tar cf $OUT/v3.tar -C $OUT v3; rm -rf $O; echo "took $(el) s"
