#!/usr/bin/env bash
# After run.sh on the same machine (bundles in /tmp/u): 25 tarball copies -9 and -d and the tarball
# -9, HEAD against 4c92a9e beside lbzip2, 5 runs each in turns. Writes $OUT/x.tar.
S=$(date +%s)
B=/tmp/u/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; parcomp --version | tail -1; parcomp-main --version | tail -1; } > $O/env.txt
xz -T0 -dc .data/m2/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar >> $O/env.txt
parcomp -q -9 -c $W/x25 > $W/x25.bz2; parcomp-main -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 same bytes both builds" >> $O/env.txt
parcomp -q -d -c $W/x25.bz2 | cmp - $W/x25 && echo "x25 round trip" >> $O/env.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" d.new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" d.main "parcomp-main -q -f -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -4
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/tar.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -3
cat $O/env.txt; rm -rf $W; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
