#!/usr/bin/env bash
# One GPU: 40d7656 (the BWT's group heads in the sort's spare buffer): GPU tests of the BWT and
# the engines, memcheck of the BWT tests, and -9 of the tarball: bytes and device memory against 21ba813.
set -u
S=$(date +%s); left() { echo $(( 200 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O
tar xJf .data/t.tar.xz -C /tmp || exit 2
export PATH=/tmp/bundle:$PATH LD_LIBRARY_PATH=/tmp/bundle
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-old --version | tail -1; } > $O/env.txt 2>&1
timeout 100 parcomp-tests-gpu --gtest_filter='Bwt*:Bz2Gpu.*:EngineGpu.*:FieldGpu.*:Pipeline*' > $O/tests.log 2>&1; echo "tests rc $?"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $O/tests.log | head
W=/dev/shm/w; mkdir -p $W; xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar
for b in parcomp-old parcomp; do $b -9 -v -f -o $W/$b.bz2 $W/l.tar 2>&1 | grep -iE "device memory|peak|GPU 0" | head -4; done | tee $O/mem.txt
cmp $W/parcomp-old.bz2 $W/parcomp.bz2 && echo "same bytes" | tee -a $O/mem.txt
t=$(( $(left) - 10 )); [ $t -gt 20 ] && { timeout $t compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='BwtGpu*:BwtSegmentsGpu*' > $O/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $O/memcheck.log; }
echo "done ($(left) s left)"
