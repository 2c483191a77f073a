#!/usr/bin/env bash
# Two GPUs: the pool fix (new) against 64601e6 (old), glibc tunables, host scaling probe.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/all.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-old --version | tail -1; lscpu | grep -E "Model name|Thread|Core|Socket|NUMA node\(s\)"; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar >> $O/env.txt; cat $O/env.txt
echo "== host probe"; for h in hostscale-old hostscale; do echo "[$h]"; $h $W/l.tar; done 2>&1 | tee $O/hostscale.txt
p="parcomp -q -f"; q="parcomp-old -q -f"
$p -9 -o $W/x25.bz2 $W/x25
TUN="GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"
AB="bash scripts/maint/wall-ab.sh --runs 3"
echo "== bz2 compress ($(left) s left)"
$AB --ref $W/x25.bz2 --jsonl $O/c.jsonl -- \
  old.1gpu "$q -9 --devices 0 -o {out} $W/x25" new.1gpu "$p -9 --devices 0 -o {out} $W/x25" \
  old.2gpu "$q -9 -o {out} $W/x25" new.2gpu "$p -9 -o {out} $W/x25" \
  old.2gpu.tun "$TUN $q -9 -o {out} $W/x25" new.2gpu.tun "$TUN $p -9 -o {out} $W/x25" new.2gpu.b256 "$p -9 --gpu-batch 256 -o {out} $W/x25" 2>&1 | tail -7
echo "== bz2 decompress /dev/null ($(left) s left)"
$AB --jsonl $O/d.jsonl -- old.1gpu "$q -d -c --devices 0 $W/x25.bz2 > /dev/null" new.1gpu "$p -d -c --devices 0 $W/x25.bz2 > /dev/null" \
  old.2gpu "$q -d -c $W/x25.bz2 > /dev/null" new.2gpu "$p -d -c $W/x25.bz2 > /dev/null" new.2gpu.tun "$TUN $p -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -5
echo "== pcmp compress ($(left) s left)"
$AB --jsonl $O/pc.jsonl -- old.2gpu "$q --format parcomp -o {out} $W/x25" new.1gpu "$p --format parcomp --devices 0 -o {out} $W/x25" new.2gpu "$p --format parcomp -o {out} $W/x25" 2>&1 | tail -3
$p -d -c $W/x25.bz2 | cmp - $W/x25 && echo "new 2gpu bz2 round trip ok" | tee -a $O/env.txt
echo "== traces ($(left) s left)"
for d in "--devices 0" ""; do n=${d:+1}; n=${n:-2}
  $p -9 $d --trace $O/trace-c-${n}gpu.json -o /dev/shm/t.out $W/x25; $p -d $d --trace $O/trace-d-${n}gpu.json -c $W/x25.bz2 > /dev/null; done
echo "== gpu tests ($(left) s left)"
t=$(( $(left) - 20 )); [ $t -gt 30 ] && { timeout $t parcomp-tests-gpu --gtest_filter='FieldGpu.*:EngineGpu.*:Bz2Gpu.Engine*' > $O/tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | head; }
gzip -f $O/*.json $O/tests.log 2>/dev/null
tar cf $OUT/x2.tar -C $OUT r
echo "done ($(left) s left)"
