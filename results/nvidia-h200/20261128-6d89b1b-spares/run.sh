#!/usr/bin/env bash
# Exploration at 6d89b1b: how many of the .bz2 decoder's output vectors to keep for reuse (the
# writer gives each back; 128 kept now, a batch takes 256), by an uncommitted build that reads the
# count from PARCOMP_X_SPARES, and glibc's trim and mmap thresholds; -d of 25 copies to /dev/null.
set -u
S=$(date +%s); left() { echo $(( 500 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b19.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc); G=$(nvidia-smi -L | wc -l)
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $N"; parcomp --version | tail -1; parcomp-x --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; sha256sum $W/x25 | cut -c1-16 | tee -a $O/env.txt; rm -f $W/x25
p="parcomp -q -f"; x="parcomp-x -q -f"; f=$W/x25.lbzip2.bz2; AB="bash scripts/maint/wall-ab.sh"
T="glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=33554432"
D=""; [ $G -gt 1 ] && D="--devices 0"
$AB --runs 5 --jsonl $O/keep1.jsonl -- new "$p -d $D -c $f > /dev/null" x128 "PARCOMP_X_SPARES=128 $x -d $D -c $f > /dev/null" x512 "PARCOMP_X_SPARES=512 $x -d $D -c $f > /dev/null" \
   x1024 "PARCOMP_X_SPARES=1024 $x -d $D -c $f > /dev/null" tun "GLIBC_TUNABLES=$T $p -d $D -c $f > /dev/null" 2>&1 | tail -5
if [ $G -gt 1 ]; then
  $AB --runs 5 --jsonl $O/keep2.jsonl -- new2 "$p -d -c $f > /dev/null" x512.2 "PARCOMP_X_SPARES=512 $x -d -c $f > /dev/null" \
    x1024.2 "PARCOMP_X_SPARES=1024 $x -d -c $f > /dev/null" tun2 "GLIBC_TUNABLES=$T $p -d -c $f > /dev/null" 2>&1 | tail -4
  PARCOMP_X_SPARES=1024 $x -d --trace $O/trace-x1024-2gpu.json -c $f > /dev/null; $p -d --trace $O/trace-new-2gpu.json -c $f > /dev/null
fi
PARCOMP_X_SPARES=1024 $x -d $D --trace $O/trace-x1024.json -c $f > /dev/null; $p -d $D --trace $O/trace-new.json -c $f > /dev/null
echo "x1024 output sha256: $(PARCOMP_X_SPARES=1024 $x -d -c $f | sha256sum | cut -c1-16)" | tee -a $O/env.txt
gzip -f $O/*.json; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
