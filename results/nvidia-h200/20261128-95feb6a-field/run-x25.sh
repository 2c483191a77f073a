#!/usr/bin/env bash
# 95feb6a on one H200 (the bundle unpacked in /tmp/u by run.sh): the Linux tarball and 25 copies of
# it at -9 and -d, and the tarball beside lbzip2, 3 runs each in turn. x25-c-v.txt and x25-d-v.txt
# come from the same commit's -v round trip of x25 (its -d into cmp, not /dev/null).
( B=/tmp/u/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
  xz -T0 -dc .data/m2/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; parcomp --version | tail -1; sha256sum $W/l.tar; } > $O/env.txt
  parcomp -q -9 -c $W/x25 > $W/x25.bz2; lbzip2 -9 -c $W/l.tar > $W/l.bz2
  bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/x25.jsonl -- c9 "parcomp -q -f -9 -c $W/x25 > /dev/null" d "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" \
    ltar_c9 "lbzip2 -9 -c $W/l.tar > /dev/null" ltar_d "lbzip2 -d -c $W/l.bz2 > /dev/null" ptar_c9 "parcomp -q -f -9 -c $W/l.tar > /dev/null" ptar_d "parcomp -q -f -d -c $W/l.bz2 > /dev/null" 2>&1 | tail -6
  cat $O/env.txt; rm -rf $W; tar cf $OUT/x.tar -C $OUT x; rm -rf $O )
