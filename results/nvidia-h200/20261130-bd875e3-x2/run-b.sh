#!/usr/bin/env bash
# After run-a.sh, with its bundle in /tmp/n (bd875e3): 100 copies of the Linux tarball (20.8 GB, .data/m4) on tmpfs, -9 and -d to
# /dev/null by name on one GPU (--devices 0) and on two, and -d of its .bz2 through a pipe from cat; cat's own pipe time beside;
# 2 runs each in turns; outputs compared. Writes $OUT/h.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
[ -x /tmp/n/bundle/parcomp ] || { echo "no bundle in /tmp/n: run x2e.sh first"; exit 2; }
B=/tmp/n/bundle; W=/dev/shm/h; O=$OUT/h; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; } > $O/env.txt 2>&1
xz -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; sha256sum $W/l.tar >> $O/env.txt
[ -n "${SMALL:-}" ] && { head -c 3000000 $W/l.tar > $W/l2; mv $W/l2 $W/l.tar; }; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; for k in 1 2 3 4; do cat $W/x25; done > $W/x100; rm -f $W/x5 $W/x25
parcomp -q -9 -c $W/x100 > $W/x100.bz2; ls -l $W >> $O/env.txt; free -g | head -2 >> $O/env.txt
echo "x100 -d two: $(parcomp -q -d -c $W/x100.bz2 | cmp - $W/x100 && echo the input); one: $(parcomp -q -d --devices 0 -c $W/x100.bz2 | cmp - $W/x100 && echo the input)" | tee -a $O/env.txt; echo "($(el) s)"
bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/x100.jsonl -- g2.c "parcomp -q -9 -c $W/x100 > /dev/null" g1.c "parcomp -q -9 --devices 0 -c $W/x100 > /dev/null" g2.d "parcomp -q -d -c $W/x100.bz2 > /dev/null" g1.d "parcomp -q -d --devices 0 -c $W/x100.bz2 > /dev/null" g2.pd "cat $W/x100.bz2 | parcomp -q -d > /dev/null" g1.pd "cat $W/x100.bz2 | parcomp -q -d --devices 0 > /dev/null" cat.bz2 "cat $W/x100.bz2 | cat > /dev/null" 2>&1 | tail -7
for d in "" "--devices 0"; do parcomp -9 -v $d -c $W/x100 2>&1 >/dev/null | tail -1; parcomp -d -v $d -c $W/x100.bz2 2>&1 >/dev/null | tail -1; done | tee $O/own.txt
rm -rf $W; tar cf $OUT/h.tar -C $OUT h; echo "took $(el) s"
