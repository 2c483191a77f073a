#!/usr/bin/env bash
# HEAD (.data/bundle-core.tar.xz) against 4c92a9e (.data/parcomp-main.xz) on one H200: GPU tests;
# 4 GB of zeros -9 (default and --cpu, traces) beside lbzip2; 1 GB zeros and a text-and-zeros mix
# checked against bzip2; 16 jobs at once, idle GPU and a GPU with 2 GiB left; a pipe. Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-420} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
xz -dc .data/parcomp-main.xz > $B/parcomp-main && chmod +x $B/parcomp-main
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-main --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | tail -8
W=/dev/shm/w; mkdir -p $W
head -c 1000000000 /dev/zero > $W/z1; head -c 4000000000 /dev/zero > $W/z4
bzip2 -9 -c $W/z1 > $W/z1.ref
{ head -c 60000000 /dev/urandom | base64; head -c 90000000 /dev/zero; head -c 30000000 /dev/urandom | base64; head -c 50000000 /dev/zero; } > $W/mix; bzip2 -9 -c $W/mix > $W/mix.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; echo "mix -9 $m: $(parcomp -q -9 $m -c $W/mix | cmp - $W/mix.ref && echo bzip2s bytes)"; done | tee -a $O/env.txt
echo "mix through a pipe: $(cat $W/mix | parcomp -9 | cmp - $W/mix.ref && echo bzip2s bytes)" | tee -a $O/env.txt
for p in parcomp parcomp-main; do $p -v -9 --trace $O/z4-trace-$p.json -c $W/z4 2> $O/z4-v-$p.txt > /dev/null; tail -1 $O/z4-v-$p.txt; $p -v -9 --cpu --trace $O/z4cpu-trace-$p.json -c $W/z4 2> $O/z4cpu-v-$p.txt > /dev/null; tail -1 $O/z4cpu-v-$p.txt; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" main "parcomp-main -q -f -9 -c $W/z4 > /dev/null" new.cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" main.cpu "parcomp-main -q -f -9 --cpu -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -5; echo "($(left) s left)"
head -c 20000000 $W/mix > $W/in20
for busy in "" 2G; do bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in20 --dir $W/load ${busy:+--gpu-busy $busy} --tag zeros-cut; done > $O/load.jsonl 2> $O/load.err; cat $O/load.jsonl | cut -c1-220; echo "($(left) s left)"
rm -rf $W; gzip -f $O/*.log $O/*.json; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
