#!/usr/bin/env bash
# Two GPUs at 40d6e2f: the mid-job memory test repeated (hang watch), the field and engine GPU tests, memcheck of the mid-job test.
set -u
S=$(date +%s); left() { echo $(( 400 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/all.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; parcomp --version | tail -1; } > $O/env.txt 2>&1
cat $O/env.txt
watch_run() {  # SECONDS LOG CMD...: runs CMD; past SECONDS, every thread's stack into LOG, then kill
  local t=$1 log=$2; shift 2; "$@" > $log 2>&1 & local pid=$! s=$SECONDS
  while kill -0 $pid 2>/dev/null; do
    if (( SECONDS - s > t )); then
      echo "=== STILL RUNNING after $t s: stacks" >> $log
      local g=$(command -v gdb || command -v cuda-gdb); [ -n "$g" ] && timeout 60 $g -p $pid -batch -ex "thread apply all bt" >> $log 2>&1
      kill -9 $pid; wait $pid 2>/dev/null; return 124
    fi; sleep 1
  done; wait $pid
}
echo "== mid-job memory test x30 ($(left) s left)"
watch_run 200 $O/midjob.log parcomp-tests-gpu --gtest_filter='FieldGpu.AGpuThatRunsOutOfMemoryMidJobHandsItsBlocksBack' --gtest_repeat=30; echo "rc $?"
echo "ok: $(grep -cE '^\[       OK' $O/midjob.log) of 30"; grep -E "Failure|did not test|STILL" $O/midjob.log | sort | uniq -c | head -5
echo "== field/engine/bz2 GPU tests x3 ($(left) s left)"
watch_run 150 $O/tests.log parcomp-tests-gpu --gtest_filter='FieldGpu.*:EngineGpu.*:Bz2Gpu.*' --gtest_repeat=3; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |STILL" $O/tests.log | sort | uniq -c | head
echo "== memcheck ($(left) s left)"
t=$(( $(left) - 15 )); [ $t -gt 40 ] && { timeout $t compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='FieldGpu.AGpuThatRunsOutOfMemoryMidJobHandsItsBlocksBack:Bz2Gpu.*' > $O/memcheck.log 2>&1; echo "memcheck rc $?"; tail -4 $O/memcheck.log; }
gzip -f $O/*.log
echo "done ($(left) s left)"
