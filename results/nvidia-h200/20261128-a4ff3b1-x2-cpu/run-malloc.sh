#!/usr/bin/env bash
# Two GPUs of one host, a4ff3b1: does glibc's malloc returning memory to the kernel (and taking it
# back as fresh page faults) cost .bz2 -d and -9 time? Default against transparent huge pages for
# malloc (glibc.malloc.hugetlb=1) and against kept memory (mmap and trim thresholds raised).
set -u
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b21.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; ldd --version | head -1; uname -r; } | tee $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; f=$W/x25.lbzip2.bz2
H="GLIBC_TUNABLES=glibc.malloc.hugetlb=1"; K="GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=17179869184"
for e in "" "$H" "$K"; do for a in "-d --devices 0" "-d" "-9 --devices 0" "-9"; do i=$f; case $a in -9*) i=$W/x25;; esac
  env $e /usr/bin/time -f "[$e] $a: %e s, %U user, %S sys, %R minor faults, %M KB" parcomp -q -f $a -c $i 2>&1 >/dev/null | tail -1; done; done | tee $O/time.txt
p="parcomp -q -f"; AB="bash scripts/maint/wall-ab.sh"
$AB --runs 5 --jsonl $O/d.jsonl -- d1 "$p -d --devices 0 -c $f > /dev/null" d1.huge "$H $p -d --devices 0 -c $f > /dev/null" d1.keep "$K $p -d --devices 0 -c $f > /dev/null" \
  d2 "$p -d -c $f > /dev/null" d2.huge "$H $p -d -c $f > /dev/null" d2.keep "$K $p -d -c $f > /dev/null" 2>&1 | tail -6
$AB --runs 5 --jsonl $O/c.jsonl -- c1 "$p -9 --devices 0 -c $W/x25 > /dev/null" c1.huge "$H $p -9 --devices 0 -c $W/x25 > /dev/null" c1.keep "$K $p -9 --devices 0 -c $W/x25 > /dev/null" \
  c2 "$p -9 -c $W/x25 > /dev/null" c2.huge "$H $p -9 -c $W/x25 > /dev/null" c2.keep "$K $p -9 -c $W/x25 > /dev/null" 2>&1 | tail -6
tar cf $OUT/r.tar -C $OUT r
