#!/usr/bin/env bash
# Two GPUs of one host: a4ff3b1 (blocks written over recycled output vectors) against c01dedf,
# one GPU and two, in turns: .bz2 -d of lbzip2's file of 25 tarball copies to /dev/null; the
# tarball; 20 GB from a file; the GPU tests; then a sweep of the decoder's settings on two GPUs
# (lanes, batch, host piece, blocks in flight) with traces, to find what holds two GPUs back.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b21.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; nvidia-smi topo -m | head -3; echo "cores $N"; parcomp --version | tail -1; parcomp-c01dedf --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; lbzip2 -9 -n $N -c $W/l.tar > $W/l.tar.bz2
sha256sum $W/l.tar $W/x25 $W/x25.lbzip2.bz2 >> $O/env.txt; tail -3 $O/env.txt
p="parcomp -q -f"; q="parcomp-c01dedf -q -f"; AB="bash scripts/maint/wall-ab.sh"; f=$W/x25.lbzip2.bz2
echo "== -d x25 to /dev/null ($(left) s left)"
$AB --runs 7 --jsonl $O/d.jsonl -- old.1gpu "$q -d --devices 0 -c $f > /dev/null" new.1gpu "$p -d --devices 0 -c $f > /dev/null" \
  old.2gpu "$q -d -c $f > /dev/null" new.2gpu "$p -d -c $f > /dev/null" lbzip2 "lbzip2 -d -n $N -c $f > /dev/null" 2>&1 | tail -5
$AB --runs 7 --jsonl $O/dtar.jsonl -- old.tar "$q -d -c $W/l.tar.bz2 > /dev/null" new.tar "$p -d -c $W/l.tar.bz2 > /dev/null" lbzip2.tar "lbzip2 -d -n $N -c $W/l.tar.bz2 > /dev/null" 2>&1 | tail -3
echo "new 2gpu: $($p -d -c $f | cmp - $W/x25 && echo same); new 1gpu: $($p -d --devices 0 -c $f | cmp - $W/x25 && echo same)" | tee -a $O/env.txt
for a in "-d --devices 0" "-d"; do /usr/bin/time -f "rss new $a: %M KB %e s" $p $a -c $f 2>&1 >/dev/null | tail -1; done | tee -a $O/env.txt
echo "== sweep, two GPUs ($(left) s left)"
$AB --runs 3 --jsonl $O/sweep.jsonl -- base "$p -d -c $f > /dev/null" lanes2 "$p -d --gpu-lanes 2 -c $f > /dev/null" lanes3 "$p -d --gpu-lanes 3 -c $f > /dev/null" \
  batch512 "$p -d --gpu-batch 512 -c $f > /dev/null" piece8M "$p -d --gpu-host-piece 8 -c $f > /dev/null" piece128M "$p -d --gpu-host-piece 128 -c $f > /dev/null" \
  flight4096 "$p -d --blocks-in-flight 4096 -c $f > /dev/null" 2>&1 | tail -8
$p -d --trace $O/trace-d-2gpu.json -c $f > /dev/null; $p -d --devices 0 --trace $O/trace-d-1gpu.json -c $f > /dev/null
$p -d --gpu-lanes 2 --trace $O/trace-d-2gpu-lanes2.json -c $f > /dev/null
echo "== GPU tests ($(left) s left)"
timeout 150 parcomp-tests-gpu > $O/gpu.log 2>&1; echo "gpu rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |CUDA error|^\[  FAILED" $O/gpu.log | head
echo "== 20 GB from a file ($(left) s left)"
$p -9 -c $W/x25 > $W/x25.bz2; rm -f $f $W/x25; cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2; rm -f $W/x25.bz2
[ $(left) -gt 100 ] && $AB --runs 2 --jsonl $O/x100.jsonl -- old.1gpu "$q -d --devices 0 -c $W/x100.bz2 > /dev/null" new.1gpu "$p -d --devices 0 -c $W/x100.bz2 > /dev/null" \
  old.2gpu "$q -d -c $W/x100.bz2 > /dev/null" new.2gpu "$p -d -c $W/x100.bz2 > /dev/null" 2>&1 | tail -4
gzip -f $O/*.json $O/*.log; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
