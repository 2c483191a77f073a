#!/usr/bin/env bash
# 33d1a10 (the windows' device buffer grown with a quarter to spare) against a4ff3b1, one GPU and two,
# in turns: .bz2 -d of lbzip2's file of 25 tarball copies to /dev/null, the tarball, 20 GB from a file; traces; the GPU tests.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b23.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $N"; parcomp --version | tail -1; parcomp-a4ff3b1 --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; lbzip2 -9 -n $N -c $W/l.tar > $W/l.tar.bz2
sha256sum $W/l.tar $W/x25 $W/x25.lbzip2.bz2 >> $O/env.txt; tail -3 $O/env.txt
p="parcomp -q -f"; q="parcomp-a4ff3b1 -q -f"; AB="bash scripts/maint/wall-ab.sh"; f=$W/x25.lbzip2.bz2
G=$(nvidia-smi -L | wc -l); TWO=(); [ $G -gt 1 ] && TWO=(old.2gpu "$q -d -c $f > /dev/null" new.2gpu "$p -d -c $f > /dev/null")
echo "== -d x25 to /dev/null ($(left) s left)"
$AB --runs 9 --jsonl $O/d.jsonl -- old.1gpu "$q -d --devices 0 -c $f > /dev/null" new.1gpu "$p -d --devices 0 -c $f > /dev/null" "${TWO[@]}" 2>&1 | tail -4
$AB --runs 7 --jsonl $O/dtar.jsonl -- old.tar "$q -d -c $W/l.tar.bz2 > /dev/null" new.tar "$p -d -c $W/l.tar.bz2 > /dev/null" lbzip2.tar "lbzip2 -d -n $N -c $W/l.tar.bz2 > /dev/null" 2>&1 | tail -3
echo "new 2gpu: $($p -d -c $f | cmp - $W/x25 && echo same); new 1gpu: $($p -d --devices 0 -c $f | cmp - $W/x25 && echo same); new tar: $($p -d -c $W/l.tar.bz2 | cmp - $W/l.tar && echo same)" | tee -a $O/env.txt
[ $G -gt 1 ] && $p -d --trace $O/trace-d-2gpu.json -c $f > /dev/null; $p -d --devices 0 --trace $O/trace-d-1gpu.json -c $f > /dev/null
[ $G -gt 1 ] && $q -d --trace $O/trace-d-2gpu-old.json -c $f > /dev/null
for a in "-d --devices 0" "-d"; do /usr/bin/time -f "rss new $a: %M KB %e s" $p $a -c $f 2>&1 >/dev/null | tail -1; done | tee -a $O/env.txt
echo "== GPU tests ($(left) s left)"
timeout 150 parcomp-tests-gpu --gtest_filter='Bz2Gpu*:EngineGpu*:FieldGpu*' > $O/gpu.log 2>&1; echo "gpu rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |CUDA error|^\[  FAILED" $O/gpu.log | head
echo "== 20 GB from a file ($(left) s left)"
$p -9 -c $W/x25 > $W/x25.bz2; rm -f $f $W/x25; cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2; rm -f $W/x25.bz2
[ $(left) -gt 150 ] && $AB --runs 2 --jsonl $O/x100.jsonl -- old.1gpu "$q -d --devices 0 -c $W/x100.bz2 > /dev/null" new.1gpu "$p -d --devices 0 -c $W/x100.bz2 > /dev/null" \
  "${TWO[@]//x25.lbzip2.bz2/x100.bz2}" 2>&1 | tail -4
rm -f $W/x100.bz2
gzip -f $O/*.json $O/*.log; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
