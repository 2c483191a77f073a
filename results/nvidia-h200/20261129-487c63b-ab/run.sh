#!/usr/bin/env bash
# bz2-tail-cpu 487c63b on bz2-input-early 9ec52e3 on main 2b9a733 (.data/bundle-core.tar.xz: a lane lets its batch's input go once uploaded; the CPU workers stay beside the GPU once the input is all read) on one H200: GPU tests; memcheck of the engine's equal-rotation,
# GPU-sorting and large-input tests and of the .bz2 GPU decoder's tests; 1 GB of zeros and a text-and-zeros
# mix against bzip2 three ways and through a pipe, and back; 4 GB of zeros -9 with its threads
# sampled from /proc (thread-states.py: which thread holds the slow early block, in which state),
# by default, as uid 65534 (no workers while CUDA starts) and with --cpu, beside lbzip2. Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-300} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $O/tests.log | tail -4
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2BlocksOfEqual*:EngineGpu.Bz2WithGpuSorting*:EngineGpu.Bz2LargeInputs*:Bz2Gpu.TheEncoder*:Bz2Gpu.BlocksLibbz2*:FieldGpu.AGpuThatRunsOutOfMemory*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W; chmod 755 $W
head -c 1000000000 /dev/zero > $W/z1; bzip2 -9 -c $W/z1 > $W/z1.ref
{ head -c 60000000 /dev/urandom | base64; head -c 90000000 /dev/zero; head -c 30000000 /dev/urandom | base64; head -c 50000000 /dev/zero; } > $W/mix; bzip2 -9 -c $W/mix > $W/mix.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; echo "mix -9 $m: $(parcomp -q -9 $m -c $W/mix | cmp - $W/mix.ref && echo bzip2s bytes)"; echo "mix -d $m: $(parcomp -q -d $m -c $W/mix.ref | cmp - $W/mix && echo the input)"; done | tee -a $O/env.txt
echo "mix through a pipe: $(cat $W/mix | parcomp -9 | cmp - $W/mix.ref && echo bzip2s bytes)" | tee -a $O/env.txt
rm -f $W/z1*
head -c 4000000000 /dev/zero > $W/z4; chmod 644 $W/z4
for k in 1 2 3; do python3 scripts/maint/thread-states.py --every 2 --out $O/z4-states-$k.jsonl -- parcomp -v -9 --trace $O/z4-trace-$k.json -c $W/z4 > /dev/null 2> $O/z4-states-$k.txt; grep -E "s in|blocks," $O/z4-states-$k.txt | head -6; done
python3 scripts/maint/thread-states.py --every 2 --out $O/z4-states-cpu.jsonl -- parcomp -v --cpu -9 --trace $O/z4-trace-cpu.json -c $W/z4 > /dev/null 2> $O/z4-states-cpu.txt; grep -E "blocks," $O/z4-states-cpu.txt
setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -v -9 --trace /dev/shm/u-trace.json -c $W/z4 > /dev/null 2> $O/z4-u-v.txt; cp /dev/shm/u-trace.json $O/z4-trace-u.json; tail -1 $O/z4-u-v.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" uid65534 "setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -q -f -9 -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -4; echo "($(left) s left)"
rm -rf $W /dev/shm/u-trace.json; gzip -f $O/*.log $O/*.json $O/z4-states-*.jsonl; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
