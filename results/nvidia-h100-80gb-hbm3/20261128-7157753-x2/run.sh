#!/usr/bin/env bash
# Two GPUs of one host, 7157753 (kernels loaded as each context is made; decode lanes) against ecbf31e,
# one GPU and two in the same run, in turns: the 5.2 GB file both ways, both formats (/dev/null),
# 20 GB from a file both ways; the engine's GPU tests on two GPUs; traces.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b14.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; nvidia-smi topo -m | sed -n 2,3p; echo "cores $N"; parcomp --version | tail -1; parcomp-ecbf31e --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
echo "== GPU tests ($(left) s left)"
timeout 120 parcomp-tests-gpu --gtest_filter='EngineGpu*:FieldGpu*:Bz2Gpu.EngineDecodesOnTheGpu' > $O/gpu.log 2>&1; echo "gpu rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |CUDA error|^\[  FAILED" $O/gpu.log | head
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
p="parcomp -q -f"; q="parcomp-ecbf31e -q -f"
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; $q -9 -c $W/x25 > $W/x25.bz2; $q --format parcomp -c $W/x25 > $W/x25.pcmp
sha256sum $W/l.tar $W/x25 $W/x25.lbzip2.bz2 $W/x25.bz2 >> $O/env.txt; tail -4 $O/env.txt
AB="bash scripts/maint/wall-ab.sh"
echo "== -9 x25 ($(left) s left)"
$AB --runs 5 --ref $W/x25.bz2 --jsonl $O/c.jsonl -- old.1gpu "$q -9 --devices 0 -o {out} $W/x25" old.2gpu "$q -9 -o {out} $W/x25" \
  new.1gpu "$p -9 --devices 0 -o {out} $W/x25" new.2gpu "$p -9 -o {out} $W/x25" 2>&1 | tail -4
echo "== parcomp format x25 ($(left) s left)"
$AB --runs 3 --jsonl $O/pc.jsonl -- old.1gpu "$q --format parcomp --devices 0 -c $W/x25 > /dev/null" old.2gpu "$q --format parcomp -c $W/x25 > /dev/null" \
  new.1gpu "$p --format parcomp --devices 0 -c $W/x25 > /dev/null" new.2gpu "$p --format parcomp -c $W/x25 > /dev/null" 2>&1 | tail -4
echo "== -d x25 to /dev/null ($(left) s left)"
$AB --runs 5 --jsonl $O/d.jsonl -- old.1gpu "$q -d --devices 0 -c $W/x25.lbzip2.bz2 > /dev/null" old.2gpu "$q -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  new.1gpu "$p -d --devices 0 -c $W/x25.lbzip2.bz2 > /dev/null" new.2gpu "$p -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  new.1gpu.pcmp "$p -d --devices 0 -c $W/x25.pcmp > /dev/null" new.2gpu.pcmp "$p -d -c $W/x25.pcmp > /dev/null" 2>&1 | tail -6
for f in x25.lbzip2.bz2 x25.pcmp; do echo "new 2gpu -d $f: $($p -d -c $W/$f | cmp - $W/x25 && echo same)"; done | tee -a $O/env.txt
$p -9 --trace $O/trace-c-2gpu.json -c $W/x25 > /dev/null; $p -9 --devices 0 --trace $O/trace-c-1gpu.json -c $W/x25 > /dev/null
echo "== 20 GB from a file ($(left) s left)"
rm -f $W/x25.pcmp $W/x25.lbzip2.bz2
cat $W/x25 $W/x25 $W/x25 $W/x25 > $W/x100; rm -f $W/x25; cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2
$AB --runs 2 --jsonl $O/x100.jsonl -- c.1gpu "$p -9 --devices 0 -c $W/x100 > /dev/null" c.2gpu "$p -9 -c $W/x100 > /dev/null" \
  d.1gpu "$p -d --devices 0 -c $W/x100.bz2 > /dev/null" d.2gpu "$p -d -c $W/x100.bz2 > /dev/null" 2>&1 | tail -4
echo "x100 -d 2gpu: $($p -d -c $W/x100.bz2 | cmp - $W/x100 && echo same)" | tee -a $O/env.txt
gzip -f $O/*.json $O/*.log; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
