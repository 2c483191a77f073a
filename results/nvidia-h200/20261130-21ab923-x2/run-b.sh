#!/usr/bin/env bash
# After run-a.sh, with its bundle in /tmp/n (21ab923): 25 copies of the Linux tarball (.data/m4) and the tarball, -9 and -d to
# /dev/null on one GPU (--devices 0) and on two, the exit as it is, PARCOMP_EXIT=reset (contexts destroyed before the exit,
# each device's at once) and PARCOMP_EXIT=child, in turns; each run's own time (-v) beside; outputs compared. Writes $OUT/e.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
[ -x /tmp/n/bundle/parcomp ] || { echo "no bundle in /tmp/n: run x2c.sh first"; exit 2; }
B=/tmp/n/bundle; W=/dev/shm/e; O=$OUT/e; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; git log -1 --format=%H; git status --porcelain | head -3; parcomp --version | tail -1; parcomp-main --version | tail -1; } > $O/env.txt 2>&1
xz -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; sha256sum $W/l.tar >> $O/env.txt
[ -n "${SMALL:-}" ] && { head -c 3000000 $W/l.tar > $W/l2; mv $W/l2 $W/l.tar; }; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm -f $W/x5
parcomp -q -9 -c $W/x25 > $W/x25.bz2; parcomp -q -9 -c $W/l.tar > $W/l.bz2; ls -l $W >> $O/env.txt
for e in "" reset child; do for d in "" "--devices 0"; do echo "x25 -d ${e:-exit} ${d:-two}: $(PARCOMP_EXIT=$e parcomp -q -d $d -c $W/x25.bz2 | cmp - $W/x25 && echo the input); pipe: $(cat $W/x25.bz2 | PARCOMP_EXIT=$e parcomp -q -d $d | cmp - $W/x25 && echo the input)"; done; done | tee -a $O/env.txt
echo "x25 -9 reset: $(PARCOMP_EXIT=reset parcomp -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo the bytes)" | tee -a $O/env.txt; echo "($(el) s)"
G=$(nvidia-smi -L | wc -l); L=()
for e in exit reset child; do L+=(g2.$e "PARCOMP_EXIT=$e parcomp -q -9 -c $W/x25 > /dev/null"); [ $e != child ] && L+=(g1.$e "PARCOMP_EXIT=$e parcomp -q -9 --devices 0 -c $W/x25 > /dev/null"); done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25-c.jsonl -- "${L[@]}" 2>&1 | tail -5; echo "($(el) s)"
L=(); for e in exit reset child; do L+=(g2.$e "PARCOMP_EXIT=$e parcomp -q -d -c $W/x25.bz2 > /dev/null"); [ $e != child ] && L+=(g1.$e "PARCOMP_EXIT=$e parcomp -q -d --devices 0 -c $W/x25.bz2 > /dev/null"); done
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x25-d.jsonl -- "${L[@]}" 2>&1 | tail -5; echo "($(el) s)"
L=(); for e in exit reset; do L+=(g2.$e.c "PARCOMP_EXIT=$e parcomp -q -9 -c $W/l.tar > /dev/null" g1.$e.c "PARCOMP_EXIT=$e parcomp -q -9 --devices 0 -c $W/l.tar > /dev/null" g2.$e.d "PARCOMP_EXIT=$e parcomp -q -d -c $W/l.bz2 > /dev/null" g1.$e.d "PARCOMP_EXIT=$e parcomp -q -d --devices 0 -c $W/l.bz2 > /dev/null"); done
bash scripts/maint/wall-ab.sh --runs 8 --jsonl $O/tar.jsonl -- "${L[@]}" 2>&1 | tail -5; echo "($(el) s)"
for e in exit reset; do for d in "" "--devices 0"; do for m in -9 -d; do f=$W/x25; [ $m = -d ] && f=$W/x25.bz2; s=$(date +%s.%N); PARCOMP_EXIT=$e parcomp -v $m $d -c $f 2>$W/v > /dev/null; t=$(date +%s.%N); echo "$e ${d:-two} $m wall $(echo "$t - $s" | bc) own: $(grep -o 'in [0-9.]* s' $W/v | tail -1)"; done; done; done | tee $O/own.txt
rm -rf $W; tar cf $OUT/e.tar -C $OUT e; echo "took $(el) s"
