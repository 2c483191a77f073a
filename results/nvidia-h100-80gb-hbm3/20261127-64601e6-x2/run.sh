#!/usr/bin/env bash
# Two-GPU exploration: start-up order, batch per GPU, lanes; 1 vs 2 GPUs both formats both ways, pipes.
set -u
S=$(date +%s); left() { echo $(( 570 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/all.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; parcomp --version | tail -1; nvidia-smi topo -m | head -4; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar $W/x25 >> $O/env.txt; cat $O/env.txt
p="parcomp -q -f"
$p -9 -o $W/x25.bz2 $W/x25; $p --format parcomp -o $W/x25.pcmp $W/x25; lbzip2 -9 -n $(nproc) -c $W/x25 > $W/x25.l.bz2
ls -la $W >> $O/env.txt
for e in "" "PARCOMP_GPU_START=together"; do for d in "--devices 0" ""; do for r in 1 2; do
  echo "[$e ${d:-all}] $(env $e parcomp -v -f -9 $d -o /dev/shm/v.out $W/x25 2>&1 | grep -E 'ready|GPU\(s\)|seconds|wall' | tr '\n' '|')" >> $O/startup.txt
done; done; done; rm -f /dev/shm/v.out
AB="bash scripts/maint/wall-ab.sh --runs 3"
echo "== bz2 compress ($(left) s left)"
$AB --ref $W/x25.bz2 --jsonl $O/c.jsonl -- \
  c.1gpu "$p -9 --devices 0 -o {out} $W/x25" c.1gpu.pipe "cat $W/x25 | $p -9 -c --devices 0 > {out}" \
  c.2gpu "$p -9 -o {out} $W/x25" c.2gpu.together "PARCOMP_GPU_START=together $p -9 -o {out} $W/x25" \
  c.2gpu.b256 "$p -9 --gpu-batch 256 -o {out} $W/x25" c.2gpu.b256.l2 "$p -9 --gpu-batch 256 --gpu-lanes 2 -o {out} $W/x25" \
  c.2gpu.pipe "cat $W/x25 | $p -9 -c > {out}" 2>&1 | tail -8
echo "== pcmp compress ($(left) s left)"
$AB --jsonl $O/pc.jsonl -- pc.1gpu "$p --format parcomp --devices 0 -o {out} $W/x25" pc.2gpu "$p --format parcomp -o {out} $W/x25" \
  pc.2gpu.b128 "$p --format parcomp --gpu-batch 128 -o {out} $W/x25" 2>&1 | tail -3
echo "== decompress to /dev/null ($(left) s left)"
$AB --jsonl $O/d.jsonl -- d.1gpu "$p -d -c --devices 0 $W/x25.bz2 > /dev/null" d.2gpu "$p -d -c $W/x25.bz2 > /dev/null" \
  d.2gpu.b512 "$p -d -c --gpu-batch 512 $W/x25.bz2 > /dev/null" d.2gpu.together "PARCOMP_GPU_START=together $p -d -c $W/x25.bz2 > /dev/null" \
  dl.1gpu "$p -d -c --devices 0 $W/x25.l.bz2 > /dev/null" dl.2gpu "$p -d -c $W/x25.l.bz2 > /dev/null" \
  dl.1gpu.pipe "cat $W/x25.l.bz2 | $p -d -c --devices 0 > /dev/null" dl.2gpu.pipe "cat $W/x25.l.bz2 | $p -d -c > /dev/null" \
  pd.1gpu "$p -d -c --devices 0 $W/x25.pcmp > /dev/null" pd.2gpu "$p -d -c $W/x25.pcmp > /dev/null" 2>&1 | tail -10
echo "== checks ($(left) s left)"
for f in x25.bz2 x25.l.bz2 x25.pcmp; do $p -d -c $W/$f | cmp - $W/x25 && echo "$f 2gpu round trip ok"; done | tee -a $O/env.txt
echo "== traces ($(left) s left)"
for d in "--devices 0" ""; do n=${d:+1}; n=${n:-2}
  $p -9 $d --trace $O/trace-c-${n}gpu.json -o /dev/shm/t.out $W/x25; $p -d $d --trace $O/trace-d-${n}gpu.json -c $W/x25.bz2 > /dev/null; done
echo "== 20 GB pipes ($(left) s left)"
cat $W/x25 $W/x25 $W/x25 $W/x25 | sha256sum >> $O/env.txt
cat $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 $W/x25.bz2 > $W/x100.bz2
$AB --runs 2 --jsonl $O/pipe.jsonl -- \
  p100c.1gpu "cat $W/x25 $W/x25 $W/x25 $W/x25 | $p -9 -c --devices 0 > {out}" p100c.2gpu "cat $W/x25 $W/x25 $W/x25 $W/x25 | $p -9 -c > {out}" \
  p100d.1gpu "cat $W/x100.bz2 | $p -d -c --devices 0 > /dev/null" p100d.2gpu "cat $W/x100.bz2 | $p -d -c > /dev/null" 2>&1 | tail -4
echo "x100 pipe check: $(cat $W/x100.bz2 | $p -d -c | sha256sum)" >> $O/env.txt; rm -f $W/x100.bz2
cat $W/x25 $W/x25 $W/x25 $W/x25 | $p -9 -c | $p -d -c | sha256sum | sed 's/^/x100 compress pipe round trip: /' >> $O/env.txt
echo "== gpu tests ($(left) s left)"
t=$(( $(left) - 15 )); [ $t -gt 30 ] && { timeout $t parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED) " $O/tests.log | head; tail -3 $O/tests.log; }
gzip -f $O/*.json $O/tests.log 2>/dev/null
tar cf $OUT/x2.tar -C $OUT r
echo "done ($(left) s left)"
