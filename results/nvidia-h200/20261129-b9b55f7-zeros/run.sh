#!/usr/bin/env bash
# bz2-row-asker b9b55f7 on bz2-idle-replace 0b14e77 on bz2-held-results b60212f (.data/bundle-core.tar.xz: a block done behind a slow one holds its
# result's bytes in the reader's room, not its input's; where the process may not bring a thread back from SCHED_IDLE,
# workers at its priority replace those that took blocks while CUDA started) against main 9c005f9 (.data/parcomp-main8.xz: code of d0ee453) on one H200: GPU tests;
# memcheck; 1 GB of zeros and a text-and-zeros mix against bzip2 three ways, back, and through a pipe; 4 GB of zeros -9
# sampled from /proc and traced, beside --cpu and lbzip2; 16 jobs of 160 MB at once, beside an idle GPU and one
# held but 2 GiB. Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-300} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
xz -dc .data/parcomp-main8.xz > $B/parcomp-main && chmod +x $B/parcomp-main
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; parcomp-main --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $O/tests.log | tail -4
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2BlocksOfEqual*:EngineGpu.Bz2LargeInputs*:FieldGpu.AGpuThatRunsOutOfMemory*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W; chmod 755 $W
head -c 1000000000 /dev/zero > $W/z1; bzip2 -9 -c $W/z1 > $W/z1.ref
{ head -c 60000000 /dev/urandom | base64; head -c 90000000 /dev/zero; head -c 30000000 /dev/urandom | base64; head -c 50000000 /dev/zero; } > $W/mix; bzip2 -9 -c $W/mix > $W/mix.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; echo "mix -9 $m: $(parcomp -q -9 $m -c $W/mix | cmp - $W/mix.ref && echo bzip2s bytes)"; echo "mix -d $m: $(parcomp -q -d $m -c $W/mix.ref | cmp - $W/mix && echo the input)"; done | tee -a $O/env.txt
echo "mix through a pipe: $(cat $W/mix | parcomp -9 | cmp - $W/mix.ref && echo bzip2s bytes)" | tee -a $O/env.txt
rm -f $W/z1*
head -c 4000000000 /dev/zero > $W/z4; chmod 644 $W/z4
python3 scripts/maint/thread-states.py --every 2 --out $O/z4-states.jsonl -- parcomp -v -9 --trace $O/z4-trace.json -c $W/z4 > /dev/null 2> $O/z4-states.txt; grep -E "blocks,|in R" $O/z4-states.txt | head -4
parcomp -v --cpu -9 --trace $O/z4-trace-cpu.json -c $W/z4 2> $O/z4-v-cpu.txt | cmp - <(parcomp-main -q --cpu -9 -c $W/z4) && echo "z4: the same bytes as main"; tail -1 $O/z4-v-cpu.txt
parcomp-main -v -9 --trace $O/z4-trace-main.json -c $W/z4 2> $O/z4-v-main.txt > /dev/null; tail -1 $O/z4-v-main.txt
setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -v -9 --trace /dev/shm/u-trace.json -c $W/z4 2> $O/z4-v-u.txt > /dev/null; cp /dev/shm/u-trace.json $O/z4-trace-u.json; rm -f /dev/shm/u-trace.json; grep -E "replace|blocks," $O/z4-v-u.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" main "parcomp-main -q -f -9 -c $W/z4 > /dev/null" new.cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" new.u "setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -q -f -9 -c $W/z4 > /dev/null" main.u "setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp-main -q -f -9 -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -6; echo "($(left) s left)"
rm -f $W/z4
head -c 80000000 $W/mix > $W/in80
bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in80 --dir $W/load --tag held > $O/load.jsonl 2> $O/load.err; cut -c1-220 $O/load.jsonl; echo "($(left) s left)"
[ "$(left)" -gt 60 ] && { bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in80 --gpu-busy 2G --dir $W/load --tag held > $O/load-busy.jsonl 2> $O/load-busy.err; cut -c1-220 $O/load-busy.jsonl; }
rm -rf $W; gzip -f $O/*.log $O/*.json $O/z4-states.jsonl 2>/dev/null; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
