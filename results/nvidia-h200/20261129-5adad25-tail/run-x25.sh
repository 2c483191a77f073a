#!/usr/bin/env bash
# After n6a.sh or alone (.data/mini.tar.xz: parcomp of bz2-tail-split 5adad25, parcomp-sets of bz2-rle-sets a0308f6, parcomp-early of bz2-rle-early 6bb625b, parcomp-idle of bz2-idle-restore 8e76ec5, parcomp-main f02f799, lbzip2,
# zstd, libraries): the tarball -9 beside lbzip2; 25 copies -9 beside zstd -3 -T0, and the host memory
# each setting holds: --blocks-in-flight 512/384, --gpu-batch 96, --gpu-lanes 2; -d with
# --gpu-batch 192 and 128. Writes $OUT/x.tar.
S=$(date +%s)
mkdir -p /tmp/m; [ -x /tmp/m/bundle/parcomp-main ] || tar xJf .data/mini.tar.xz -C /tmp/m
B=/tmp/m/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; for p in parcomp parcomp-sets parcomp-early parcomp-idle parcomp-main; do $p --version | tail -1; done; zstd --version; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar >> $O/env.txt
parcomp -q -9 -c $W/x25 > $W/x25.bz2
for p in parcomp-sets parcomp-early parcomp-main; do $p -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9: $p writes the same bytes" >> $O/env.txt; done
for a in "--blocks-in-flight 384" "--gpu-batch 96" "--gpu-lanes 2"; do parcomp -q -9 $a -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 $a: the same bytes" >> $O/env.txt; done
parcomp -q -d -c $W/x25.bz2 | cmp - $W/x25 && echo "x25 round trip" >> $O/env.txt
for p in parcomp parcomp-sets parcomp-main; do $p -v -9 --trace $O/tar-trace-$p.json -c $W/l.tar 2> $O/tar-v-$p.txt > /dev/null; tail -2 $O/tar-v-$p.txt; done
parcomp -v -9 --trace $O/x25-trace-c.json -c $W/x25 2> $O/x25-v-c.txt > /dev/null; parcomp -v -d --trace $O/x25-trace-d.json -c $W/x25.bz2 2> $O/x25-v-d.txt > /dev/null; tail -1 $O/x25-v-c.txt $O/x25-v-d.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/tar.jsonl -- new "parcomp -q -f -9 -c $W/l.tar > /dev/null" sets "parcomp-sets -q -f -9 -c $W/l.tar > /dev/null" idle "parcomp-idle -q -f -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -f -9 -c $W/l.tar > /dev/null" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -5
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25.jsonl -- new "parcomp -q -f -9 -c $W/x25 > /dev/null" sets "parcomp-sets -q -f -9 -c $W/x25 > /dev/null" early "parcomp-early -q -f -9 -c $W/x25 > /dev/null" idle "parcomp-idle -q -f -9 -c $W/x25 > /dev/null" main "parcomp-main -q -f -9 -c $W/x25 > /dev/null" zstd3 "zstd -q -3 -T0 -c $W/x25 > /dev/null" f512 "parcomp -q -f -9 --blocks-in-flight 512 -c $W/x25 > /dev/null" f384 "parcomp -q -f -9 --blocks-in-flight 384 -c $W/x25 > /dev/null" b96 "parcomp -q -f -9 --gpu-batch 96 -c $W/x25 > /dev/null" l2 "parcomp -q -f -9 --gpu-lanes 2 -c $W/x25 > /dev/null" 2>&1 | tail -10
echo "($(( $(date +%s) - S )) s so far)"
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25d.jsonl -- d.new "parcomp -q -f -d -c $W/x25.bz2 > /dev/null" d.main "parcomp-main -q -f -d -c $W/x25.bz2 > /dev/null" d.b192 "parcomp -q -f -d --gpu-batch 192 -c $W/x25.bz2 > /dev/null" d.b128 "parcomp -q -f -d --gpu-batch 128 -c $W/x25.bz2 > /dev/null" 2>&1 | tail -4
cat $O/env.txt; rm -rf $W; gzip -f $O/*.json; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
