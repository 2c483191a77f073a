#!/usr/bin/env bash
# Where a run's time outside the engine goes (bd875e3): 5.2 and 20.8 GB made of copies of this tree's tar (source, results), -9 and -d
# to /dev/null, on two GPUs and one, the exit as it is and with PARCOMP_EXIT=child; each run's -v report timed as it arrives
# (tail.py: before the engine = report time - own time; after it = reaped - report time). Writes $OUT/t.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
O=$OUT/t; W=/dev/shm/t; mkdir -p $O /tmp/n $W; chmod 755 $W; tar xJf .data/mini21.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; } > $O/env.txt 2>&1
tar cf $W/l.tar --exclude=./.git --exclude=./.data --exclude=./build --exclude='*.gz' --exclude='*.xz' --exclude='*.png' --exclude='*.pdf' --sort=name --owner=0 --group=0 --mtime=2026-01-01 .; sha256sum $W/l.tar >> $O/env.txt
n=$(( 5206272000 / $(stat -c %s $W/l.tar) )); for k in $(seq $n); do cat $W/l.tar; done > $W/x25; for k in 1 2 3 4; do cat $W/x25; done > $W/x100; 
parcomp -q -9 -c $W/x100 > $W/x100.bz2; parcomp -q -9 -c $W/x25 > $W/x25.bz2; ls -l $W >> $O/env.txt; echo "made ($(el) s)"
for r in 1 2; do for f in x25 x100; do for d in two one; do for m in c d; do for e in exit child; do
  dv=""; [ $d = one ] && dv="--devices 0"; in=$W/$f; [ $m = d ] && in=$W/$f.bz2; mm=-9; [ $m = d ] && mm=-d
  PARCOMP_EXIT=$e python3 .data/tail.py "$f.$d.$m.$e" parcomp -v $mm $dv -c $in
done; done; done; done; done | tee $O/tail.jsonl | cut -c1-200
python3 - $O/tail.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); print('%-22s own %.3f before %.3f after %.3f reaped %.3f' % (r['label'], r['own_s'], r['before_engine_s'], r['after_report_s'], r['reaped_s']))
PY
rm -rf $W; tar cf $OUT/t.tar -C $OUT t; echo "took $(el) s"
