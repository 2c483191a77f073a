#!/usr/bin/env bash
# 33d1a10 against a4ff3b1 with wall-ab.sh taking the labels forwards and backwards in turns (ac3a750), 10
# runs each: .bz2 -d of lbzip2's file of 25 tarball copies to /dev/null, one GPU and two.
set -u
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b23.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $N"; parcomp --version | tail -1; parcomp-a4ff3b1 --version | tail -1; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; f=$W/x25.lbzip2.bz2; sha256sum $f >> $O/env.txt; cat $O/env.txt
p="parcomp -q -f"; q="parcomp-a4ff3b1 -q -f"
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/d-both-ways.jsonl -- old.1gpu "$q -d --devices 0 -c $f > /dev/null" new.1gpu "$p -d --devices 0 -c $f > /dev/null" \
  old.2gpu "$q -d -c $f > /dev/null" new.2gpu "$p -d -c $f > /dev/null" 2>&1 | tail -4
tar cf $OUT/r.tar -C $OUT r
