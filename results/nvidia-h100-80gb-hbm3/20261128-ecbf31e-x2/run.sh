#!/usr/bin/env bash
# Two GPUs of one host at ecbf31e: one GPU (--devices 0) against two in the same run, whole programs,
# 3 runs each in turns: compress and decompress the 5.2 GB file (both formats, /dev/null), 20 GB
# through a pipe both ways, the tarball both ways; peers (lbzip2, zstd -3) in the same run; traces.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b11.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; nvidia-smi topo -m | head -4; echo "cores $N"; free -g | head -2; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; zstd --version; } > $O/env.txt 2>&1
cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
p="parcomp -q -f"
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; lbzip2 -9 -n $N -c $W/l.tar > $W/l.lbzip2.bz2
$p -9 -c $W/x25 > $W/x25.bz2; $p --format parcomp -c $W/x25 > $W/x25.pcmp; $p --format parcomp -c $W/l.tar > $W/l.pcmp; zstd -q -3 -T0 -c $W/x25 > $W/x25.zst
sha256sum $W/l.tar $W/x25 $W/x25.lbzip2.bz2 $W/x25.bz2 >> $O/env.txt; ls -l $W >> $O/env.txt; tail -12 $O/env.txt
echo "== GPU tests ($(left) s left)"
timeout 150 parcomp-tests-gpu --gtest_filter='EngineGpu*:FieldGpu*' > $O/gpu.log 2>&1; echo "gpu rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |CUDA error" $O/gpu.log | head
AB="bash scripts/maint/wall-ab.sh"
echo "== compress x25 ($(left) s left)"
$AB --runs 3 --ref $W/x25.bz2 --jsonl $O/c.jsonl -- bz2.1gpu "$p -9 --devices 0 -o {out} $W/x25" bz2.2gpu "$p -9 -o {out} $W/x25" \
  zstd.l3 "zstd -q -3 -T0 -c $W/x25 > /dev/null" 2>&1 | tail -3
$AB --runs 3 --jsonl $O/pc.jsonl -- pcmp.1gpu "$p --format parcomp --devices 0 -c $W/x25 > /dev/null" pcmp.2gpu "$p --format parcomp -c $W/x25 > /dev/null" 2>&1 | tail -2
echo "== decompress x25 to /dev/null ($(left) s left)"
$AB --runs 3 --jsonl $O/d.jsonl -- own.1gpu "$p -d -c --devices 0 $W/x25.bz2 > /dev/null" own.2gpu "$p -d -c $W/x25.bz2 > /dev/null" \
  lbz.1gpu "$p -d -c --devices 0 $W/x25.lbzip2.bz2 > /dev/null" lbz.2gpu "$p -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  pcmp.1gpu "$p -d -c --devices 0 $W/x25.pcmp > /dev/null" pcmp.2gpu "$p -d -c $W/x25.pcmp > /dev/null" \
  lbzip2 "lbzip2 -d -n $N -c $W/x25.lbzip2.bz2 > /dev/null" zstd.l3 "zstd -q -d -T0 -c $W/x25.zst > /dev/null" 2>&1 | tail -8
for f in x25.bz2 x25.lbzip2.bz2 x25.pcmp; do echo "2gpu -d $f: $($p -d -c $W/$f | cmp - $W/x25 && echo same)"; done | tee -a $O/env.txt
echo "== traces ($(left) s left)"
for d in "--devices 0" ""; do k=${d:+1}; k=${k:-2}; $p -9 $d --trace $O/trace-c-${k}gpu.json -c $W/x25 > /dev/null; $p -d $d --trace $O/trace-d-${k}gpu.json -c $W/x25.lbzip2.bz2 > /dev/null; done
echo "== tarball ($(left) s left)"
$AB --runs 5 --jsonl $O/tar.jsonl -- bz2.c.1gpu "$p -9 --devices 0 -c $W/l.tar > /dev/null" bz2.c.2gpu "$p -9 -c $W/l.tar > /dev/null" lbzip2.c "lbzip2 -9 -n $N -c $W/l.tar > /dev/null" \
  bz2.d.1gpu "$p -d --devices 0 -c $W/l.lbzip2.bz2 > /dev/null" bz2.d.2gpu "$p -d -c $W/l.lbzip2.bz2 > /dev/null" lbzip2.d "lbzip2 -d -n $N -c $W/l.lbzip2.bz2 > /dev/null" \
  pcmp.d.1gpu "$p -d --devices 0 -c $W/l.pcmp > /dev/null" pcmp.d.2gpu "$p -d -c $W/l.pcmp > /dev/null" 2>&1 | tail -8
echo "== 20 GB through a pipe ($(left) s left)"
rm -f $W/x25.zst $W/x25.pcmp
X="cat $W/x25 $W/x25 $W/x25 $W/x25"; Y="cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2"
$AB --runs 2 --jsonl $O/pipe.jsonl -- cat.c "$X | cat > /dev/null" c.1gpu "$X | $p -9 --devices 0 -c > /dev/null" c.2gpu "$X | $p -9 -c > /dev/null" \
  cat.d "$Y | cat > /dev/null" d.1gpu "$Y | $p -d --devices 0 -c > /dev/null" d.2gpu "$Y | $p -d -c > /dev/null" 2>&1 | tail -6
echo "pipe -d 2gpu: $($Y | $p -d -c | sha256sum | cut -c1-16) x100: $($X | sha256sum | cut -c1-16)" | tee -a $O/env.txt
gzip -f $O/*.json $O/*.log 2>/dev/null
tar cf $OUT/x2.tar -C $OUT r
echo "done ($(left) s left)"
