#!/usr/bin/env bash
# One H200 host (16 threads): Silesia xml and dickens, both ways, both formats, by name and through a pipe, beside lbzip2 (10 runs
# each in turns; "parcomp" 1dd22f7); every output compared. Writes $OUT/u.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
O=$OUT/u; W=/dev/shm/u; mkdir -p $O /tmp/n $W; chmod 755 $W; rm -rf /tmp/n/bundle; tar xJf .data/mini23.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > $O/env.txt 2>&1
for f in xml dickens; do bzip2 -dc .data/m5/$f.bz2 > $W/$f; parcomp -q -9 -c $W/$f > $W/$f.bz2; parcomp -q --format parcomp -c $W/$f > $W/$f.pcmp; lbzip2 -9 -c $W/$f > $W/$f.lbz2
  for x in bz2 pcmp lbz2; do echo "$f.$x: $(parcomp -d -c $W/$f.$x | cmp - $W/$f && echo the input) / pipe $(cat $W/$f.$x | parcomp -d | cmp - $W/$f && echo the input)"; done; done | tee -a $O/env.txt
for f in xml dickens; do X=$W/$f
  bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/$f.jsonl -- c "parcomp -q -9 -c $X > /dev/null" c.pipe "cat $X | parcomp -q -9 > /dev/null" lb.c "lbzip2 -9 -c $X > /dev/null" lb.c.pipe "cat $X | lbzip2 -9 > /dev/null" pc.c "parcomp -q --format parcomp -c $X > /dev/null" pc.c.pipe "cat $X | parcomp -q --format parcomp > /dev/null" d "parcomp -q -d -c $X.lbz2 > /dev/null" d.pipe "cat $X.lbz2 | parcomp -q -d > /dev/null" lb.d "lbzip2 -d -c $X.lbz2 > /dev/null" lb.d.pipe "cat $X.lbz2 | lbzip2 -d > /dev/null" pc.d "parcomp -q -d -c $X.pcmp > /dev/null" pc.d.pipe "cat $X.pcmp | parcomp -q -d > /dev/null" 2>&1 | tail -12
done
rm -rf $W; tar cf $OUT/u.tar -C $OUT u; echo "took $(el) s"
