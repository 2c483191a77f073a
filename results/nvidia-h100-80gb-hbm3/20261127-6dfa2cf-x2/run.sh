#!/usr/bin/env bash
# Two GPUs at 6dfa2cf (new) against 64601e6 (old): .bz2 both ways, 20 GB pipe decompression, GPU tests.
set -u
S=$(date +%s); left() { echo $(( 330 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/all.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-old --version | tail -1; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar $W/x25 >> $O/env.txt; cat $O/env.txt
p="parcomp -q -f"; q="parcomp-old -q -f"
$p -9 -o $W/x25.bz2 $W/x25
AB="bash scripts/maint/wall-ab.sh --runs 3"
echo "== bz2 decompress /dev/null ($(left) s left)"
$AB --jsonl $O/d.jsonl -- old.1gpu "$q -d -c --devices 0 $W/x25.bz2 > /dev/null" old.2gpu "$q -d -c $W/x25.bz2 > /dev/null" \
  new.1gpu "$p -d -c --devices 0 $W/x25.bz2 > /dev/null" new.2gpu "$p -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -4
echo "== bz2 compress ($(left) s left)"
$AB --ref $W/x25.bz2 --jsonl $O/c.jsonl -- old.1gpu "$q -9 --devices 0 -o {out} $W/x25" old.2gpu "$q -9 -o {out} $W/x25" \
  new.1gpu "$p -9 --devices 0 -o {out} $W/x25" new.2gpu "$p -9 -o {out} $W/x25" 2>&1 | tail -4
$p -d -c $W/x25.bz2 | cmp - $W/x25 && echo "x25.bz2 new 2gpu round trip ok" | tee -a $O/env.txt
for d in "--devices 0" ""; do n=${d:+1}; n=${n:-2}; $p -d $d --trace $O/trace-d-${n}gpu.json -c $W/x25.bz2 > /dev/null; done
echo "== 20 GB pipe ($(left) s left)"
cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2
$AB --runs 2 --jsonl $O/pipe.jsonl -- cat.pipe "cat $W/x100.bz2 | cat > /dev/null" \
  p100d.1gpu "cat $W/x100.bz2 | $p -d -c --devices 0 > /dev/null" p100d.2gpu "cat $W/x100.bz2 | $p -d -c > /dev/null" 2>&1 | tail -3
echo "pipe -d: $(cat $W/x100.bz2 | $p -d -c | sha256sum) (want dda4512070f1c9e8...)" | tee -a $O/env.txt
echo "== gpu tests ($(left) s left)"
t=$(( $(left) - 15 )); [ $t -gt 30 ] && { timeout $t parcomp-tests-gpu --gtest_filter='FieldGpu.*:EngineGpu.*:Bz2Gpu.*' > $O/tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | head; }
gzip -f $O/*.json $O/tests.log 2>/dev/null
tar cf $OUT/x2.tar -C $OUT r
echo "done ($(left) s left)"
