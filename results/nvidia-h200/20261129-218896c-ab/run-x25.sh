#!/usr/bin/env bash
# After n1.sh on the same machine (bundles in /tmp/u): 25 tarball copies and the tarball at -9, the
# branch against main's 4c92a9e beside lbzip2, 5 runs each in turns; then the suite for what is left.
S=$(date +%s)
( B=/tmp/u/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
  xz -T0 -dc .data/m2/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; parcomp --version | tail -1; parcomp-main --version | tail -1; sha256sum $W/l.tar; } > $O/env.txt
  parcomp -v -9 --trace $O/x25-trace-new.json -c $W/x25 2> $O/x25-v-new.txt | cmp - <(parcomp-main -q -9 -c $W/x25) && echo "x25 -9 same bytes both builds" >> $O/env.txt
  parcomp-main -q -9 -c $W/x25 > $W/x25.bz2
  bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" d.new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" d.main "parcomp-main -q -f -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -4
  bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/tar.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -3
  cat $O/env.txt; rm -rf $W; gzip -f $O/*.json; tar cf $OUT/x.tar -C $OUT x; rm -rf $O )
echo "A/B took $(( $(date +%s) - S )) s"
