#!/usr/bin/env bash
# After n8a.sh or alone (.data/mini8.tar.xz: parcomp of bz2-row-asker b9b55f7 on bz2-idle-replace 0b14e77 on bz2-held-results b60212f, parcomp-main of 9c005f9 (code of
# d0ee453: decompression's batches of 192), lbzip2, zstd, libraries; .data/m4: the tarball): the tarball and 25 copies
# at -9 and -d, new against main, beside lbzip2 and zstd (25 copies' memory sampled over time beside their traces); the tarball with PARCOMP_EXIT=child (what the exit costs).
# Writes $OUT/x.tar.
set -u
S=$(date +%s)
mkdir -p /tmp/m; tar xJf .data/mini8.tar.xz -C /tmp/m || exit 2
B=/tmp/m/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; for p in parcomp parcomp-main; do $p --version | tail -1; done; zstd --version; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
sha256sum $W/l.tar >> $O/env.txt
for f in l.tar x25; do parcomp -q -9 -c $W/$f > $W/$f.bz2; parcomp-main -q -9 -c $W/$f | cmp - $W/$f.bz2 && echo "$f -9: main writes the same bytes" >> $O/env.txt; parcomp -q -d -c $W/$f.bz2 | cmp - $W/$f && echo "$f -d: the input" >> $O/env.txt; done
lbzip2 -9 -c $W/l.tar > $W/l.tar.lb.bz2
cat $O/env.txt
parcomp -v -9 --trace $O/tar-trace.json -c $W/l.tar 2> $O/tar-v.txt > /dev/null; tail -1 $O/tar-v.txt
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/l.tar-c.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" exit.child "PARCOMP_EXIT=child parcomp -q -f -9 -c $W/l.tar > /dev/null" new.u "setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp -q -f -9 -c $W/l.tar > /dev/null" main.u "setpriv --reuid=65534 --regid=65534 --clear-groups $B/parcomp-main -q -f -9 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -6
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/l.tar-d.jsonl -- new "parcomp -q -f -d -c $W/l.tar.bz2 > /dev/null" main "parcomp-main -q -f -d -c $W/l.tar.bz2 > /dev/null" lbzip2 "lbzip2 -d -c $W/l.tar.lb.bz2 > /dev/null" 2>&1 | tail -3
echo "($(( $(date +%s) - S )) s so far)"
python3 scripts/maint/thread-states.py --every 5 --out $O/x25c-states.jsonl -- parcomp -v -9 --trace $O/x25c-trace.json -c $W/x25 > /dev/null 2> $O/x25c-states.txt; grep -E "peak resident|blocks," $O/x25c-states.txt
python3 scripts/maint/thread-states.py --every 5 --out $O/x25d-states.jsonl -- parcomp -v -d --trace $O/x25d-trace.json -c $W/x25.bz2 > /dev/null 2> $O/x25d-states.txt; grep -E "peak resident|blocks," $O/x25d-states.txt
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/x25-c.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" zstd3 "zstd -q -3 -T0 -c $W/x25 > /dev/null" 2>&1 | tail -3
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25-d.jsonl -- new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" main "parcomp-main -q -f -d -c $W/x25.bz2 > /dev/null" 2>&1 | tail -2
rm -rf $W; gzip -f $O/*.json $O/*-states.jsonl; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
