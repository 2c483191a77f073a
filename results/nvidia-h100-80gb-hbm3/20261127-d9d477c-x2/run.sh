#!/usr/bin/env bash
# Two GPUs: d9d477c (new: scanner reader, pooled windows, recycled outputs) against de11177 (old). Tests first (hang watch), then A/B.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/all.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-old --version | tail -1; command -v gdb cuda-gdb eu-stack compute-sanitizer; } > $O/env.txt 2>&1
cat $O/env.txt
watch_run() {  # SECONDS LOG CMD...: runs CMD; past SECONDS, every thread's stack into LOG, then kill
  local t=$1 log=$2; shift 2; "$@" > $log 2>&1 & local pid=$! s=$SECONDS
  while kill -0 $pid 2>/dev/null; do
    if (( SECONDS - s > t )); then
      echo "=== STILL RUNNING after $t s: stacks" >> $log
      local g=$(command -v gdb || command -v cuda-gdb); [ -n "$g" ] && timeout 60 $g -p $pid -batch -ex "thread apply all bt" >> $log 2>&1
      for f in /proc/$pid/task/*; do echo "$f $(cat $f/comm) $(cat $f/wchan 2>/dev/null)"; done >> $log
      kill -9 $pid; wait $pid 2>/dev/null; return 124
    fi; sleep 1
  done; wait $pid
}
echo "== mid-job memory test x12 ($(left) s left)"
watch_run 150 $O/midjob.log parcomp-tests-gpu --gtest_filter='FieldGpu.AGpuThatRunsOutOfMemoryMidJobHandsItsBlocksBack' --gtest_repeat=12; echo "rc $?"
grep -cE "^\[       OK" $O/midjob.log; grep -E "FAILED|STILL" $O/midjob.log | head -5
echo "== all GPU tests ($(left) s left)"
watch_run 240 $O/tests.log parcomp-tests-gpu; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran|STILL" $O/tests.log | head
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar $W/x25 >> $O/env.txt
p="parcomp -q -f"; q="parcomp-old -q -f"
$p -9 -o $W/x25.bz2 $W/x25; sha256sum $W/x25.bz2 >> $O/env.txt
AB="bash scripts/maint/wall-ab.sh --runs 3"
T="GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"
echo "== bz2 decompress /dev/null ($(left) s left)"
$AB --jsonl $O/d.jsonl -- old.1gpu "$q -d -c --devices 0 $W/x25.bz2 > /dev/null" old.2gpu "$q -d -c $W/x25.bz2 > /dev/null" \
  new.1gpu "$p -d -c --devices 0 $W/x25.bz2 > /dev/null" new.2gpu "$p -d -c $W/x25.bz2 > /dev/null" new.2gpu.tun "$T $p -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -5
$p -d -c $W/x25.bz2 | cmp - $W/x25 && echo "x25.bz2 new 2gpu -d ok" | tee -a $O/env.txt
for d in "--devices 0" ""; do n=${d:+1}; n=${n:-2}; $p -d $d --trace $O/trace-d-${n}gpu.json -c $W/x25.bz2 > /dev/null; done
echo "== bz2 compress ($(left) s left)"
$AB --ref $W/x25.bz2 --jsonl $O/c.jsonl -- new.1gpu "$p -9 --devices 0 -o {out} $W/x25" new.2gpu "$p -9 -o {out} $W/x25" new.2gpu.tun "$T $p -9 -o {out} $W/x25" 2>&1 | tail -3
$p -9 --trace $O/trace-c-2gpu.json -o $W/c.bz2 $W/x25; cmp $W/c.bz2 $W/x25.bz2 && echo "c trace run same bytes"; rm -f $W/c.bz2
echo "== 20 GB pipe -d ($(left) s left)"
cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2; rm -f $W/x25
$AB --runs 2 --jsonl $O/pipe.jsonl -- cat.pipe "cat $W/x100.bz2 | cat > /dev/null" \
  new.1gpu "cat $W/x100.bz2 | $p -d -c --devices 0 > /dev/null" new.2gpu "cat $W/x100.bz2 | $p -d -c > /dev/null" 2>&1 | tail -3
echo "pipe -d: $(cat $W/x100.bz2 | $p -d -c | sha256sum)" | tee -a $O/env.txt
echo "== memcheck ($(left) s left)"
t=$(( $(left) - 20 )); [ $t -gt 60 ] && { timeout $t compute-sanitizer --tool memcheck --leak-check full parcomp-tests-gpu --gtest_filter='EngineGpu.EveryGpuTakesWorkWithTheSameBytes:FieldGpu.AGpuThatRunsOutOfMemoryMidJobHandsItsBlocksBack' > $O/memcheck.log 2>&1; echo "memcheck rc $?"; tail -5 $O/memcheck.log; }
gzip -f $O/*.json $O/*.log 2>/dev/null
tar cf $OUT/x2.tar -C $OUT r
echo "done ($(left) s left)"
