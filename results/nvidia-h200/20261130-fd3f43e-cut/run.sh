#!/usr/bin/env bash
# One H200 host (16 threads): Silesia xml and dickens at -9 (fd3f43e: "parcomp" with the first read and the cut's tile threshold
# from the environment), main's values (2 MiB, tiles from 4 MiB) against a 1 MiB first read (A), tiles from 1 MiB (B), both (C),
# beside lbzip2 -9, 12 runs each in turns; one trace each of main's and C's; every output compared. Writes $OUT/s.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
O=$OUT/s; W=/dev/shm/s; mkdir -p $O /tmp/n $W; chmod 755 $W; tar xJf .data/mini22.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > $O/env.txt 2>&1; cat $O/env.txt
for f in xml dickens; do bzip2 -dc .data/m5/$f.bz2 > $W/$f; done; sha256sum $W/xml $W/dickens >> $O/env.txt
A="PARCOMP_X_FIRST_READ_KIB=1024"; Bv="PARCOMP_X_TILES_FROM_KIB=1024"
for f in xml dickens; do parcomp -q -9 -c $W/$f > $W/ref; for v in "$A" "$Bv" "$A $Bv"; do echo "$f $v: $(env $v parcomp -q -9 -c $W/$f | cmp - $W/ref && echo the same bytes)"; done; done | tee -a $O/env.txt
for f in xml dickens; do
  bash scripts/maint/wall-ab.sh --runs 12 --jsonl $O/$f.jsonl -- main "parcomp -q -9 -c $W/$f > /dev/null" A "$A parcomp -q -9 -c $W/$f > /dev/null" B "$Bv parcomp -q -9 -c $W/$f > /dev/null" C "$A $Bv parcomp -q -9 -c $W/$f > /dev/null" lbzip2 "lbzip2 -9 -c $W/$f > /dev/null" 2>&1 | tail -5
done
for k in 1 2; do parcomp -q -9 --trace $O/xml-trace-main-$k.json -c $W/xml > /dev/null; env $A $Bv parcomp -q -9 --trace $O/xml-trace-C-$k.json -c $W/xml > /dev/null; done
rm -rf $W; gzip -f $O/*.json; tar cf $OUT/s.tar -C $OUT s; echo "took $(el) s"
