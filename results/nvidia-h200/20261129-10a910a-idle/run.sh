#!/usr/bin/env bash
# Branch bz2-idle-workers 10a910a (.data/bundle-core.tar.xz: the preparer's host encodings beside
# its batches, and CPU workers at SCHED_IDLE while CUDA starts) against gpu-periodic-async 2260af1
# (.data/parcomp-async.xz, the first alone) and main 3a4154c (.data/parcomp-main.xz) on one H200: GPU tests, memcheck of the equal-rotation engine tests; 1 GB of zeros and a
# text-and-zeros mix against bzip2 three ways; 4 GB of zeros -9 default (trace) and --cpu beside
# lbzip2; 16 jobs of 160 MB (the GPU path) at once, idle GPU and 2 GiB left. Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-420} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
xz -dc .data/parcomp-main.xz > $B/parcomp-main && xz -dc .data/parcomp-async.xz > $B/parcomp-async && chmod +x $B/parcomp-main $B/parcomp-async
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-async --version | tail -1; parcomp-main --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | tail -8
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2BlocksOfEqual*:EngineGpu.Bz2WithGpuSorting*:EngineGpu.Bz2LargeInputs*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W
head -c 1000000000 /dev/zero > $W/z1; head -c 4000000000 /dev/zero > $W/z4; bzip2 -9 -c $W/z1 > $W/z1.ref
{ head -c 60000000 /dev/urandom | base64; head -c 90000000 /dev/zero; head -c 30000000 /dev/urandom | base64; head -c 50000000 /dev/zero; } > $W/mix; bzip2 -9 -c $W/mix > $W/mix.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; echo "mix -9 $m: $(parcomp -q -9 $m -c $W/mix | cmp - $W/mix.ref && echo bzip2s bytes)"; done | tee -a $O/env.txt
echo "mix through a pipe: $(cat $W/mix | parcomp -9 | cmp - $W/mix.ref && echo bzip2s bytes)" | tee -a $O/env.txt
for p in parcomp parcomp-async parcomp-main; do $p -v -9 --trace $O/z4-trace-$p.json -c $W/z4 2> $O/z4-v-$p.txt > /dev/null; tail -1 $O/z4-v-$p.txt; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" async "parcomp-async -q -f -9 -c $W/z4 > /dev/null" main "parcomp-main -q -f -9 -c $W/z4 > /dev/null" new.cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -5; echo "($(left) s left)"
head -c 80000000 $W/mix > $W/in80
for busy in "" 2G; do bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in80 --dir $W/load ${busy:+--gpu-busy $busy} --tag periodic-async; done > $O/load.jsonl 2> $O/load.err; cut -c1-260 $O/load.jsonl; echo "($(left) s left)"
rm -rf $W; gzip -f $O/*.log $O/*.json; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
