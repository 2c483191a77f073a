#!/usr/bin/env bash
# 62806fc (.bz2 compression: one GPU batch per lane in flight) against main 5e865d4 ("parcomp-main") on two H200s:
# the engine's GPU tests, the new test on a build with five batches a lane (it must fail), 25 copies -9 on one GPU and
# two (bytes and wall), 4 GB of zeros at -9. Writes $OUT/v.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
mkdir -p /tmp/v; tar xJf .data/mini13.tar.xz -C /tmp/v || exit 2
B=/tmp/v/bundle; W=/dev/shm/x; O=$OUT/v; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $(nproc)"; git log -1 --format=%H; parcomp --version | tail -1; parcomp-main --version | tail -1; } > $O/env.txt; cat $O/env.txt
timeout 150 parcomp-tests-gpu --gtest_filter='EngineGpu.*' > $O/tests.log 2>&1; echo "EngineGpu rc $? ($(el) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|OK \] EngineGpu.Bz2Compression" $O/tests.log | tail -6
timeout 60 parcomp-tests-gpu-mut --gtest_filter='EngineGpu.Bz2CompressionHoldsOneBatchPerLaneInFlight' > $O/tests-mut.log 2>&1; echo "five batches a lane: rc $? (must fail)"; grep -E "Expected|Which is|FAILED  \]|PASSED" $O/tests-mut.log | head -6
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
[ -n "${SMALL:-}" ] && { head -c 20000000 $W/x25 > $W/x2; mv $W/x2 $W/x25; }
sha256sum $W/l.tar >> $O/env.txt
parcomp-main -q -9 -c $W/x25 > $W/x25.bz2
parcomp -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9: the bytes of main (two GPUs)" >> $O/env.txt
parcomp -q -9 --devices 0 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 --devices 0: the bytes of main" >> $O/env.txt
tail -2 $O/env.txt; echo "($(el) s)"
X="-c $W/x25 > /dev/null"
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x25-c.jsonl -- g1 "parcomp -q -9 --devices 0 $X" g1.main "parcomp-main -q -9 --devices 0 $X" g2 "parcomp -q -9 $X" g2.main "parcomp-main -q -9 $X" 2>&1 | tail -4; echo "($(el) s)"
rm -f $W/x25*; head -c ${Z:-4000000000} /dev/zero > $W/z4; parcomp-main -q -9 -c $W/z4 > $W/z4.bz2; parcomp -q -9 -c $W/z4 | cmp - $W/z4.bz2 && echo "zeros -9: the bytes of main" >> $O/env.txt
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/z4.jsonl -- new "parcomp -q -9 -c $W/z4 > /dev/null" main "parcomp-main -q -9 -c $W/z4 > /dev/null" 2>&1 | tail -2
rm -rf $W /tmp/parcomp-ab; gzip -f $O/*.log; tar cf $OUT/v.tar -C $OUT v; rm -rf $O
echo "took $(el) s"
