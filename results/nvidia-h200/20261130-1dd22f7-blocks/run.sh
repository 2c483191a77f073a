#!/usr/bin/env bash
# One H200 host (16 threads): the parcomp format's block size on small files (Silesia xml, dickens): --block 1M (the default), 512K,
# 384K, 256K beside lbzip2 -9, 10 runs each in turns, sizes and round trips ("parcomp" 1dd22f7). Writes $OUT/v.tar.
set -u
O=$OUT/v; W=/dev/shm/v; mkdir -p $O /tmp/n $W; chmod 755 $W; rm -rf /tmp/n/bundle; tar xJf .data/mini23.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > $O/env.txt 2>&1
for f in xml dickens; do bzip2 -dc .data/m5/$f.bz2 > $W/$f; for b in 1M 512K 384K 256K; do parcomp -q --format parcomp --block $b -c $W/$f > $W/o; echo "$f --block $b: $(stat -c %s $W/o) bytes, $(parcomp -d -c $W/o | cmp - $W/$f && echo the input)"; done; echo "$f lbzip2 -9: $(lbzip2 -9 -c $W/$f | wc -c) bytes"; done | tee -a $O/env.txt
for f in xml dickens; do X=$W/$f
  bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/$f.jsonl -- b1M "parcomp -q --format parcomp -c $X > /dev/null" b512K "parcomp -q --format parcomp --block 512K -c $X > /dev/null" b384K "parcomp -q --format parcomp --block 384K -c $X > /dev/null" b256K "parcomp -q --format parcomp --block 256K -c $X > /dev/null" lbzip2 "lbzip2 -9 -c $X > /dev/null" bz2 "parcomp -q -9 -c $X > /dev/null" 2>&1 | tail -6
done
rm -rf $W; tar cf $OUT/v.tar -C $OUT v
