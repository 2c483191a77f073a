#!/usr/bin/env bash
# Two GPUs: .bz2 decompression of the 5.2 GB file to /dev/null, 93c1e0f (a batch's windows uploaded
# from a pinned stage, not waited for) against 68de395, one GPU and two, interleaved; traces.
set -u
S=$(date +%s); left() { echo $(( 400 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b3.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-68de395 --version | tail -1; } > $O/env.txt 2>&1
cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
parcomp -q -9 -o $W/x25.bz2 $W/x25; sha256sum $W/l.tar $W/x25 $W/x25.bz2 >> $O/env.txt; tail -3 $O/env.txt
n="parcomp -q"; o="parcomp-68de395 -q"
echo "== -d to /dev/null ($(left) s left)"
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/d.jsonl -- old.1gpu "$o -d -c --devices 0 $W/x25.bz2 > /dev/null" old.2gpu "$o -d -c $W/x25.bz2 > /dev/null" \
  new.1gpu "$n -d -c --devices 0 $W/x25.bz2 > /dev/null" new.2gpu "$n -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -4
$n -d -c $W/x25.bz2 | cmp - $W/x25 && echo "new 2gpu -d same bytes" | tee -a $O/env.txt
for d in "--devices 0" ""; do k=${d:+1}; k=${k:-2}; $n -d $d --trace $O/trace-d-${k}gpu.json -c $W/x25.bz2 > /dev/null; done
gzip -f $O/*.json 2>/dev/null
echo "done ($(left) s left)"
