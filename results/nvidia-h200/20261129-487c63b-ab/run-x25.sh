#!/usr/bin/env bash
# After n7a.sh or alone (.data/mini7.tar.xz: parcomp of bz2-tail-cpu 487c63b (the CPU workers stay
# beside the GPU once the input is all read) on bz2-input-early 9ec52e3 (parcomp-ie: a lane lets its
# batch's input go once uploaded), parcomp-main of 86786bd (main), parcomp-prev of f7671e3 (before the
# run-length stage's sixteen-byte steps), lbzip2, zstd, libraries; .data/m4: the tarball): the
# tarball, 5 and 25 copies, -9 (new, ie, main) and -d (new, prev), and the batch settings the defaults
# may take (-9 --gpu-batch 96, -d --gpu-batch 192), beside lbzip2 and zstd; 25 copies decompressed to
# a file on the host's disk beside `cat` to one. Writes $OUT/x.tar.
set -u
S=$(date +%s)
mkdir -p /tmp/m; tar xJf .data/mini7.tar.xz -C /tmp/m || exit 2
B=/tmp/m/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; for p in parcomp parcomp-ie parcomp-main parcomp-prev; do $p --version | tail -1; done; zstd --version; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25
sha256sum $W/l.tar >> $O/env.txt
for f in l.tar x5 x25; do parcomp -q -9 -c $W/$f > $W/$f.bz2; done; lbzip2 -9 -c $W/l.tar > $W/l.tar.lb.bz2  # lbzip2-made copies: its streams one after another
for k in 1 2 3 4 5; do cat $W/l.tar.lb.bz2; done > $W/x5.lb.bz2; for k in 1 2 3 4 5; do cat $W/x5.lb.bz2; done > $W/x25.lb.bz2
for f in l.tar x25; do for p in parcomp-ie parcomp-main parcomp-prev; do $p -q -9 -c $W/$f | cmp - $W/$f.bz2 && echo "$f -9: $p writes the same bytes" >> $O/env.txt; done; parcomp -q -9 --gpu-batch 96 -c $W/$f | cmp - $W/$f.bz2 && echo "$f -9 --gpu-batch 96: the same bytes" >> $O/env.txt; parcomp -q -d -c $W/$f.lb.bz2 | cmp - $W/$f && echo "$f: lbzip2's file back" >> $O/env.txt; parcomp -q -d --gpu-batch 192 -c $W/$f.bz2 | cmp - $W/$f && echo "$f -d --gpu-batch 192: the input" >> $O/env.txt; done
parcomp -v -9 --trace $O/x25c-trace.json -c $W/x25 2> $O/x25c-v.txt > /dev/null; parcomp -v -d --trace $O/x25d-trace.json -c $W/x25.bz2 2> $O/x25d-v.txt > /dev/null; parcomp-prev -v -d --trace $O/x25d-trace-prev.json -c $W/x25.bz2 2> $O/x25d-v-prev.txt > /dev/null; tail -1 $O/x25d-v.txt $O/x25d-v-prev.txt
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/l.tar-c.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" ie "parcomp-ie -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" b96 "parcomp -q -f -9 --gpu-batch 96 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -5
parcomp -v -9 --trace $O/tar-trace.json -c $W/l.tar 2> $O/tar-v.txt > /dev/null; parcomp-ie -v -9 --trace $O/tar-trace-ie.json -c $W/l.tar 2> $O/tar-v-ie.txt > /dev/null; tail -1 $O/tar-v.txt $O/tar-v-ie.txt
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x5-c.jsonl -- new "parcomp -q -f -9 -c $W/x5 > /dev/null" ie "parcomp-ie -q -f -9 -c $W/x5 > /dev/null" main "parcomp-main -q -f -9 -c $W/x5 > /dev/null" b96 "parcomp -q -f -9 --gpu-batch 96 -c $W/x5 > /dev/null" 2>&1 | tail -4
for f in l.tar x5; do
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/$f-d.jsonl -- new "parcomp -q -f -d -c $W/$f.bz2 > /dev/null" prev "parcomp-prev -q -f -d -c $W/$f.bz2 > /dev/null" b192 "parcomp -q -f -d --gpu-batch 192 -c $W/$f.bz2 > /dev/null" lbzip2 "lbzip2 -d -c $W/$f.lb.bz2 > /dev/null" 2>&1 | tail -4
done; echo "($(( $(date +%s) - S )) s so far)"
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/x25-c.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" b96 "parcomp -q -f -9 --gpu-batch 96 -c $W/x25 > /dev/null" zstd3 "zstd -q -3 -T0 -c $W/x25 > /dev/null" 2>&1 | tail -4
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x25-d.jsonl -- new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" prev "parcomp-prev -q -f -d -c $W/x25.bz2 > /dev/null" b192 "parcomp -q -f -d --gpu-batch 192 -c $W/x25.bz2 > /dev/null" lbmade "parcomp -q -f -d -c $W/x25.lb.bz2 > /dev/null" 2>&1 | tail -4
bash scripts/maint/wall-ab.sh --runs 4 --work /tmp/parcomp-ab --jsonl $O/x25-file.jsonl -- d.file "parcomp -q -f -d -o {out} $W/x25.bz2" cat "cat $W/x25 > {out}" 2>&1 | tail -2
cat $O/env.txt; rm -rf $W /tmp/parcomp-ab; gzip -f $O/*.json; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
