#!/usr/bin/env bash
# Branch bz2-tail-split 5adad25 (.data/bundle-core.tar.xz: the last blocks shared among the lanes, on bz2-rle-sets a0308f6 on
# bz2-rle-early 6bb625b on bz2-idle-restore 8e76ec5, CPU workers back at
# the default priority where a ready GPU has taken no batch 50 ms after CUDA's start-up; the lanes' run-length
# stages back once uploaded, each block's uploaded from its own vector) against main f02f799 (.data/parcomp-main.xz)
# on one H200: GPU tests; 1 GB of zeros and a text-and-zeros mix against bzip2 three ways and through a
# pipe; 4 GB of zeros -9 (-v, traces) beside --cpu and lbzip2; xml and dickens -9 and -d beside lbzip2;
# 16 jobs of 160 MB at once. Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-400} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
xz -dc .data/parcomp-main.xz > $B/parcomp-main && chmod +x $B/parcomp-main
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-main --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | tail -6
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2BlocksOfEqual*:EngineGpu.Bz2WithGpuSorting*:EngineGpu.Bz2LargeInputs*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W
head -c 1000000000 /dev/zero > $W/z1; head -c 4000000000 /dev/zero > $W/z4; bzip2 -9 -c $W/z1 > $W/z1.ref
{ head -c 60000000 /dev/urandom | base64; head -c 90000000 /dev/zero; head -c 30000000 /dev/urandom | base64; head -c 50000000 /dev/zero; } > $W/mix; bzip2 -9 -c $W/mix > $W/mix.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; echo "mix -9 $m: $(parcomp -q -9 $m -c $W/mix | cmp - $W/mix.ref && echo bzip2s bytes)"; done | tee -a $O/env.txt
echo "as uid 65534: $(setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -v -9 -c $W/z1 2>&1 > /dev/null | grep -E 'CPU workers|blocks,' | tr '\n' ' ')" | tee -a $O/env.txt
echo "mix through a pipe: $(cat $W/mix | parcomp -9 | cmp - $W/mix.ref && echo bzip2s bytes)" | tee -a $O/env.txt
for p in parcomp parcomp-main; do $p -v -9 --trace $O/z4-trace-$p.json -c $W/z4 2> $O/z4-v-$p.txt > /dev/null; tail -2 $O/z4-v-$p.txt; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" main "parcomp-main -q -f -9 -c $W/z4 > /dev/null" new.cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -4; echo "($(left) s left)"
rm -f $W/z4 $W/z1*
head -c 1000000 $W/mix > $W/m1; for p in parcomp parcomp-main; do echo "$p --gpu on 1 MB: peak RSS $(/usr/bin/time -f %M $p --gpu -q -9 -c $W/m1 2>&1 > $W/m1.bz2) KB, -d $(/usr/bin/time -f %M $p --gpu -q -d -c $W/m1.bz2 2>&1 > /dev/null) KB"; done | tee -a $O/env.txt
for f in dickens xml; do bzip2 -dc .data/sm/$f.bz2 > $W/$f; bzip2 -9 -c $W/$f > $W/$f.bz2; done
for f in dickens xml; do bash scripts/maint/wall-ab.sh --runs 7 --jsonl $O/small-$f.jsonl -- new "parcomp -q -f -9 -c $W/$f > /dev/null" main "parcomp-main -q -f -9 -c $W/$f > /dev/null" lbzip2 "lbzip2 -9 -c $W/$f > /dev/null" d.new "parcomp -q -f -d -c $W/$f.bz2 > /dev/null" d.main "parcomp-main -q -f -d -c $W/$f.bz2 > /dev/null" d.lbzip2 "lbzip2 -d -c $W/$f.bz2 > /dev/null" 2>&1 | tail -6; done; echo "($(left) s left)"
head -c 80000000 $W/mix > $W/in80
bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in80 --dir $W/load --tag idle-restore > $O/load.jsonl 2> $O/load.err; cut -c1-200 $O/load.jsonl; echo "($(left) s left)"
rm -rf $W; gzip -f $O/*.log $O/*.json; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
