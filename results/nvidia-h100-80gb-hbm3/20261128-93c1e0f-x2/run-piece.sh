#!/usr/bin/env bash
# Two GPUs, 93c1e0f: .bz2 -d of the 5.2 GB file to /dev/null with collect()'s host piece at 32 MiB
# (the default) against 128 MiB, one GPU and two, interleaved; a trace of each two-GPU setting.
set -u
S=$(date +%s); left() { echo $(( 200 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b3.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores $(nproc)"; parcomp --version | tail -1; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
parcomp -q -9 -o $W/x25.bz2 $W/x25; rm -f $W/x25; sha256sum $W/l.tar $W/x25.bz2 >> $O/env.txt; cat $O/env.txt
n="parcomp -q"
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/piece.jsonl -- p32.1gpu "$n -d -c --devices 0 $W/x25.bz2 > /dev/null" p32.2gpu "$n -d -c $W/x25.bz2 > /dev/null" \
  p128.1gpu "$n -d -c --devices 0 --gpu-host-piece 128 $W/x25.bz2 > /dev/null" p128.2gpu "$n -d -c --gpu-host-piece 128 $W/x25.bz2 > /dev/null" 2>&1 | tail -4
$n -d -c --gpu-host-piece 128 --trace $O/trace-d-2gpu-p128.json $W/x25.bz2 > /dev/null
gzip -f $O/*.json 2>/dev/null
echo "done ($(left) s left)"
