#!/usr/bin/env bash
# Two GPUs of one host at c01dedf: one GPU and two in the same run, in turns: the 5.2 GB file both
# ways, both formats (/dev/null), decompression with whole batches per GPU (--gpu-batch 512);
# 20 GB from a file both ways; the engine's GPU tests on two GPUs; traces.
set -u
S=$(date +%s); left() { echo $(( 570 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b17.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; nvidia-smi topo -m | sed -n 2,3p; echo "cores $N"; free -g | sed -n 2p; parcomp --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
echo "== GPU tests ($(left) s left)"
timeout 100 parcomp-tests-gpu --gtest_filter='EngineGpu*:FieldGpu*:Bz2Gpu.EngineDecodesOnTheGpu' > $O/gpu.log 2>&1; echo "gpu rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |CUDA error|^\[  FAILED" $O/gpu.log | head
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
p="parcomp -q -f"
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; $p -9 -c $W/x25 > $W/x25.bz2; $p --format parcomp -c $W/x25 > $W/x25.pcmp
sha256sum $W/l.tar $W/x25 $W/x25.lbzip2.bz2 $W/x25.bz2 >> $O/env.txt; tail -4 $O/env.txt
AB="bash scripts/maint/wall-ab.sh"
echo "== -9 x25 ($(left) s left)"
$AB --runs 5 --ref $W/x25.bz2 --jsonl $O/c.jsonl -- 1gpu "$p -9 --devices 0 -o {out} $W/x25" 2gpu "$p -9 -o {out} $W/x25" 2>&1 | tail -3
echo "== parcomp format x25 ($(left) s left)"
$AB --runs 3 --jsonl $O/pc.jsonl -- 1gpu "$p --format parcomp --devices 0 -c $W/x25 > /dev/null" 2gpu "$p --format parcomp -c $W/x25 > /dev/null" 2>&1 | tail -3
echo "== -d x25 to /dev/null ($(left) s left)"
$AB --runs 5 --jsonl $O/d.jsonl -- 1gpu "$p -d --devices 0 -c $W/x25.lbzip2.bz2 > /dev/null" 2gpu "$p -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  2gpu.b512 "$p -d --gpu-batch 512 -c $W/x25.lbzip2.bz2 > /dev/null" 1gpu.pcmp "$p -d --devices 0 -c $W/x25.pcmp > /dev/null" 2gpu.pcmp "$p -d -c $W/x25.pcmp > /dev/null" 2>&1 | tail -6
for f in x25.lbzip2.bz2 x25.pcmp; do echo "2gpu -d $f: $($p -d -c $W/$f | cmp - $W/x25 && echo same)"; done | tee -a $O/env.txt
$p -d --trace $O/trace-d-2gpu.json -c $W/x25.lbzip2.bz2 > /dev/null; $p -d --gpu-batch 512 --trace $O/trace-d-2gpu-b512.json -c $W/x25.lbzip2.bz2 > /dev/null; $p -d --devices 0 --trace $O/trace-d-1gpu.json -c $W/x25.lbzip2.bz2 > /dev/null
$p -9 --trace $O/trace-c-2gpu.json -c $W/x25 > /dev/null
for a in "-9" "-d --devices 0" "-d"; do f=$W/x25; [ "${a:0:2}" = "-d" ] && f=$W/x25.lbzip2.bz2; /usr/bin/time -f "rss $a: %M KB %e s" $p $a -c $f 2>&1 >/dev/null | tail -1; done | tee -a $O/env.txt
echo "== 20 GB from a file ($(left) s left)"
rm -f $W/x25.pcmp $W/x25.lbzip2.bz2
cat $W/x25 $W/x25 $W/x25 $W/x25 > $W/x100; rm -f $W/x25; cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2
[ $(left) -gt 150 ] && $AB --runs 2 --jsonl $O/x100.jsonl -- c.1gpu "$p -9 --devices 0 -c $W/x100 > /dev/null" c.2gpu "$p -9 -c $W/x100 > /dev/null" \
  d.1gpu "$p -d --devices 0 -c $W/x100.bz2 > /dev/null" d.2gpu "$p -d -c $W/x100.bz2 > /dev/null" 2>&1 | tail -4
gzip -f $O/*.json $O/*.log; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
