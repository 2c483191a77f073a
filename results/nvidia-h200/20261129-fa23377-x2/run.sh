#!/usr/bin/env bash
# 25 copies of the Linux tarball (5.2 GB) and 100 copies (20.8 GB) on two H200s of one host, one GPU being --devices 0
# in the same runs: bz2-d-cpu-start fa23377 ("parcomp") against main 55fddaf ("parcomp-main"), from x2a.sh's /tmp/u,
# else .data/mini11.tar.xz. -9 and the parcomp format; -d to /dev/null with 0, 8 and 16 CPU workers kept beside the
# GPUs; 20.8 GB through a pipe both ways beside cat; lbzip2 and zstd in the same rounds; traces. Writes $OUT/x.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
if [ -x /tmp/u/bundle/parcomp-main ] && [ -x /tmp/u/bundle/parcomp ]; then B=/tmp/u/bundle
else mkdir -p /tmp/m; tar xJf .data/mini11.tar.xz -C /tmp/m || exit 2; B=/tmp/m/bundle; fi
W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $(nproc)"; git log -1 --format=%H; parcomp --version | tail -1; parcomp-main --version | tail -1; zstd --version; lbzip2 --version 2>&1 | head -1; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
[ -n "${SMALL:-}" ] && { head -c 20000000 $W/x25 > $W/x2; mv $W/x2 $W/x25; }
sha256sum $W/l.tar >> $O/env.txt
parcomp -q -9 -c $W/x25 > $W/x25.bz2
parcomp -q -9 --devices 0 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 --devices 0: the same bytes as two GPUs" >> $O/env.txt
parcomp-main -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9: main writes the same bytes" >> $O/env.txt
lbzip2 -9 -c $W/x25 > $W/x25.lbz2
for f in x25.bz2 x25.lbz2; do for m in "" "--devices 0" "--cpu-beside-gpus 16"; do parcomp -q -d $m -c $W/$f | cmp - $W/x25 && echo "$f -d $m: the input" >> $O/env.txt; done; done
parcomp -q --format parcomp -c $W/x25 > $W/x25.pcmp; parcomp -q -d -c $W/x25.pcmp | cmp - $W/x25 && echo "x25 parcomp format: the input back" >> $O/env.txt
cat $O/env.txt; echo "($(el) s)"
parcomp -v -9 --trace $O/x25c-g2-trace.json -c $W/x25 2> $O/x25c-g2-v.txt > /dev/null; tail -1 $O/x25c-g2-v.txt
parcomp -v -9 --devices 0 --trace $O/x25c-g1-trace.json -c $W/x25 2> $O/x25c-g1-v.txt > /dev/null; tail -1 $O/x25c-g1-v.txt
parcomp -v -d --trace $O/x25d-g2-trace.json -c $W/x25.bz2 2> $O/x25d-g2-v.txt > /dev/null; tail -1 $O/x25d-g2-v.txt
parcomp -v -d --devices 0 --trace $O/x25d-g1-trace.json -c $W/x25.bz2 2> $O/x25d-g1-v.txt > /dev/null; tail -1 $O/x25d-g1-v.txt
parcomp -v -d --cpu-beside-gpus 16 --trace $O/x25d-g2-b16-trace.json -c $W/x25.bz2 2> $O/x25d-g2-b16-v.txt > /dev/null; tail -1 $O/x25d-g2-b16-v.txt
X="-c $W/x25.bz2 > /dev/null"
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25-d.jsonl -- g1 "parcomp -q -d --devices 0 $X" g2 "parcomp -q -d $X" g2.main "parcomp-main -q -d $X" g1.b16 "parcomp -q -d --devices 0 --cpu-beside-gpus 16 $X" g2.b8 "parcomp -q -d --cpu-beside-gpus 8 $X" g2.b16 "parcomp -q -d --cpu-beside-gpus 16 $X" g2.b24 "parcomp -q -d --cpu-beside-gpus 24 $X" lbzip2 "lbzip2 -d $X" 2>&1 | tail -8; echo "($(el) s)"
X="-c $W/x25 > /dev/null"
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25-c.jsonl -- g1 "parcomp -q -9 --devices 0 $X" g2 "parcomp -q -9 $X" g2.main "parcomp-main -q -9 $X" g1.b16 "parcomp -q -9 --devices 0 --cpu-beside-gpus 16 $X" g2.b16 "parcomp -q -9 --cpu-beside-gpus 16 $X" g2.gb256 "parcomp -q -9 --gpu-batch 256 $X" zstd3 "zstd -q -3 -T0 $X" 2>&1 | tail -7; echo "($(el) s)"
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/x25-pcmp.jsonl -- g1 "parcomp -q --format parcomp --devices 0 $X" g2 "parcomp -q --format parcomp $X" g2.main "parcomp-main -q --format parcomp $X" 2>&1 | tail -3
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/x25-pcmp-d.jsonl -- g1 "parcomp -q -d --devices 0 -c $W/x25.pcmp > /dev/null" g2 "parcomp -q -d -c $W/x25.pcmp > /dev/null" 2>&1 | tail -2; echo "($(el) s)"
rm -f $W/x25.lbz2 $W/x25.pcmp
if [ $(el) -lt ${PIPE_BY:-300} ]; then
  for k in 1 2 3 4; do cat $W/x25; done > $W/x100; rm $W/x25; parcomp -q -9 -c $W/x100 > $W/x100.bz2; ls -l $W/x100 $W/x100.bz2 >> $O/env.txt
  bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/x100-pipe-c.jsonl -- g1 "cat $W/x100 | parcomp -q -9 --devices 0 > /dev/null" g2 "cat $W/x100 | parcomp -q -9 > /dev/null" cat "cat $W/x100 | cat > /dev/null" 2>&1 | tail -3; echo "($(el) s)"
  bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/x100-pipe-d.jsonl -- g1 "cat $W/x100.bz2 | parcomp -q -d --devices 0 > /dev/null" g2 "cat $W/x100.bz2 | parcomp -q -d > /dev/null" g2.b16 "cat $W/x100.bz2 | parcomp -q -d --cpu-beside-gpus 16 > /dev/null" cat "cat $W/x100.bz2 | cat > /dev/null" 2>&1 | tail -4; echo "($(el) s)"
  cat $W/x100.bz2 | parcomp -q -d | cmp - $W/x100 && echo "x100 -d through a pipe: the input" >> $O/env.txt
fi
rm -rf $W /tmp/parcomp-ab; gzip -f $O/*.json 2>/dev/null; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(el) s"
