#!/usr/bin/env bash
# 0b54fab (the .bz2 reader's magic scan) against e05acdd, and 45dd5b8 (branch reader-ahead: a file
# read on a thread of its own) beside them, on one GPU and on two where there are two:
# -d of 25 tarball copies to /dev/null, and of 100 copies (20.8 GB) from a file, in turns (wall-ab,
# Williams order); a trace of each build on all GPUs; the decoder's GPU tests, memcheck, and racecheck
# of one engine test (the walk's kernels).
set -u
S=$(date +%s); left() { echo $(( 570 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b26.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
G=$(nvidia-smi -L | wc -l)
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-e05acdd --version | tail -1; parcomp-45dd5b8 --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 120 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:EngineGpu.Bz2*:FieldGpu.*' > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "PASSED|FAILED|SKIPPED" $O/tests.log | tail -4
timeout 90 compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -2
timeout 120 compute-sanitizer --tool racecheck parcomp-tests-gpu --gtest_filter='Bz2Gpu.EngineDecodesOnTheGpu' > $O/racecheck.log 2>&1; echo "racecheck rc $? ($(left) s left)"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $O/racecheck.log | tail -2
W=/dev/shm/w; mkdir -p $W; xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
p="parcomp -q -f"; $p -9 -c $W/x25 > $W/x25.bz2; for k in 1 2 3 4; do cat $W/x25.bz2; done > $W/x100.bz2
sha256sum $W/l.tar $W/x25 $W/x25.bz2 $W/x100.bz2 >> $O/env.txt
echo "round trip: $(parcomp -q -d -c $W/x25.bz2 | cmp - $W/x25 && echo same)" | tee -a $O/env.txt; rm -f $W/x25 $W/l.tar
for d in "--devices 0" $([ $G -gt 1 ] && echo all); do [ "$d" = all ] && d=""; n=$([ -z "$d" ] && echo 2gpu || echo 1gpu)
  bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/d25-$n.jsonl -- e05acdd "parcomp-e05acdd -q -f -d $d -c $W/x25.bz2 > /dev/null" 0b54fab "parcomp -q -f -d $d -c $W/x25.bz2 > /dev/null" 45dd5b8 "parcomp-45dd5b8 -q -f -d $d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -3
  echo "($(left) s left)"
done
for d in "--devices 0" $([ $G -gt 1 ] && echo all); do [ "$d" = all ] && d=""; n=$([ -z "$d" ] && echo 2gpu || echo 1gpu)
  [ $(left) -gt 120 ] && bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/d100-$n.jsonl -- e05acdd "parcomp-e05acdd -q -f -d $d -c $W/x100.bz2 > /dev/null" 0b54fab "parcomp -q -f -d $d -c $W/x100.bz2 > /dev/null" 45dd5b8 "parcomp-45dd5b8 -q -f -d $d -c $W/x100.bz2 > /dev/null" 2>&1 | tail -3
done
for v in e05acdd 0b54fab 45dd5b8; do b=parcomp-$v; [ $v = 0b54fab ] && b=parcomp
  $b -q -f -d --trace $O/trace-$v.json -c $W/x25.bz2 > /dev/null; gzip -f $O/trace-$v.json; done
gzip -f $O/*.log; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
