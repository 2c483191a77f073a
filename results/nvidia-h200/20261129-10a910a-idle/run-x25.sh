#!/usr/bin/env bash
# After n5a.sh on the same machine (builds in /tmp/u/bundle): 25 tarball copies -9 and -d and the
# tarball -9: bz2-idle-workers (parcomp), gpu-periodic-async (parcomp-async) and main 3a4154c
# (parcomp-main) beside lbzip2, 5 runs each in turns; -v and traces of the tarball. Writes $OUT/x.tar.
S=$(date +%s)
mkdir -p /tmp/u; [ -x /tmp/u/bundle/parcomp-main ] || tar xJf .data/mini.tar.xz -C /tmp/u
B=/tmp/u/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; for p in parcomp parcomp-async parcomp-main; do $p --version | tail -1; done; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar >> $O/env.txt
parcomp -q -9 -c $W/x25 > $W/x25.bz2
for p in parcomp-async parcomp-main; do $p -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9: $p writes the same bytes" >> $O/env.txt; done
bzip2 -9 -c $W/l.tar > $W/l.ref; parcomp -q -9 -c $W/l.tar | cmp - $W/l.ref && echo "tarball -9: bzip2's bytes" >> $O/env.txt
parcomp -q -d -c $W/x25.bz2 | cmp - $W/x25 && echo "x25 round trip" >> $O/env.txt
for p in parcomp parcomp-async parcomp-main; do $p -v -9 --trace $O/tar-trace-$p.json -c $W/l.tar 2> $O/tar-v-$p.txt > /dev/null; tail -1 $O/tar-v-$p.txt; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/tar.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" async "parcomp-async -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -4
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" async "parcomp-async -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" d.new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" d.main "parcomp-main -q -f -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -5
cat $O/env.txt; rm -rf $W; gzip -f $O/*.json; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
