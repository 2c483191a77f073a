#!/usr/bin/env bash
# 25 copies of the Linux tarball (5.2 GB) and 100 copies (20.8 GB) on two H200s of one host, main from x2a.sh's /tmp/u,
# one GPU being --devices 0 in the same runs: what the run's exit costs (wall against -v's own time, and
# PARCOMP_EXIT=child), whole batches per GPU for -d (--gpu-batch 384, 288; blocks in flight 768) and -9 (256, with
# 704 in flight), 20.8 GB through a pipe from dd bs=4M and from cat. Writes $OUT/x.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
[ -x /tmp/u/bundle/parcomp ] || { echo "no /tmp/u/bundle: run x2a.sh first"; exit 2; }
B=/tmp/u/bundle; W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "cores $(nproc)"; git log -1 --format=%H; parcomp --version | tail -1; zstd --version; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
[ -n "${SMALL:-}" ] && { head -c 20000000 $W/x25 > $W/x2; mv $W/x2 $W/x25; }
sha256sum $W/l.tar >> $O/env.txt
parcomp -q -9 -c $W/x25 > $W/x25.bz2
parcomp -q -9 --devices 0 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 --devices 0: the same bytes as two GPUs" >> $O/env.txt
parcomp -q -9 --gpu-batch 256 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 --gpu-batch 256: the same bytes" >> $O/env.txt
parcomp -q -d --gpu-batch 384 -c $W/x25.bz2 | cmp - $W/x25 && echo "x25 -d --gpu-batch 384: the input" >> $O/env.txt
cat $O/env.txt; echo "($(el) s)"
parcomp -v -d --gpu-batch 384 --trace $O/x25d-g2-gb384-trace.json -c $W/x25.bz2 2> $O/x25d-g2-gb384-v.txt > /dev/null; tail -1 $O/x25d-g2-gb384-v.txt
parcomp -v -d --trace $O/x25d-g2-trace.json -c $W/x25.bz2 2> $O/x25d-g2-v.txt > /dev/null; tail -1 $O/x25d-g2-v.txt
parcomp -v -9 --gpu-batch 256 --trace $O/x25c-g2-gb256-trace.json -c $W/x25 2> $O/x25c-g2-gb256-v.txt > /dev/null; tail -1 $O/x25c-g2-gb256-v.txt
# The exit: each run's -v line (its own time) beside its wall time; PARCOMP_EXIT=child leaves the release to a child.
V() { echo "parcomp -v $1 2> >(grep -o 'in [0-9.]* s' >> $O/own-$2.txt) > /dev/null"; }
X="-c $W/x25.bz2"; C="-c $W/x25"
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/exit.jsonl -- \
  d.g1 "$(V "-d --devices 0 $X" d.g1)" d.g1.child "PARCOMP_EXIT=child $(V "-d --devices 0 $X" d.g1.child)" \
  d.g2 "$(V "-d $X" d.g2)" d.g2.child "PARCOMP_EXIT=child $(V "-d $X" d.g2.child)" \
  c.g1 "$(V "-9 --devices 0 $C" c.g1)" c.g1.child "PARCOMP_EXIT=child $(V "-9 --devices 0 $C" c.g1.child)" \
  c.g2 "$(V "-9 $C" c.g2)" c.g2.child "PARCOMP_EXIT=child $(V "-9 $C" c.g2.child)" 2>&1 | tail -8; echo "($(el) s)"
X="-c $W/x25.bz2 > /dev/null"
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x25-d.jsonl -- g1 "parcomp -q -d --devices 0 $X" g2 "parcomp -q -d $X" g2.gb384 "parcomp -q -d --gpu-batch 384 $X" g2.gb384.f768 "parcomp -q -d --gpu-batch 384 --blocks-in-flight 768 $X" g2.gb288 "parcomp -q -d --gpu-batch 288 $X" 2>&1 | tail -5; echo "($(el) s)"
X="-c $W/x25 > /dev/null"
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/x25-c.jsonl -- g1 "parcomp -q -9 --devices 0 $X" g2 "parcomp -q -9 $X" g2.gb256 "parcomp -q -9 --gpu-batch 256 $X" g2.gb256.f704 "parcomp -q -9 --gpu-batch 256 --blocks-in-flight 704 $X" 2>&1 | tail -4; echo "($(el) s)"
if [ $(el) -lt ${PIPE_BY:-250} ]; then
  for k in 1 2 3 4; do cat $W/x25; done > $W/x100; rm $W/x25; parcomp -q -9 -c $W/x100 > $W/x100.bz2; ls -l $W/x100 $W/x100.bz2 >> $O/env.txt; echo "($(el) s)"
  P="dd if=$W/x100.bz2 bs=4M status=none"
  bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/x100-pipe-d.jsonl -- g1 "$P | parcomp -q -d --devices 0 > /dev/null" g2 "$P | parcomp -q -d > /dev/null" g2.gb384 "$P | parcomp -q -d --gpu-batch 384 > /dev/null" g2.cat "cat $W/x100.bz2 | parcomp -q -d > /dev/null" dd "$P | dd bs=4M status=none > /dev/null" 2>&1 | tail -5; echo "($(el) s)"
  $P | parcomp -q -d --gpu-batch 384 | cmp - $W/x100 && echo "x100 -d --gpu-batch 384 through a pipe: the input" >> $O/env.txt
  P="dd if=$W/x100 bs=4M status=none"
  [ $(el) -lt ${PIPE_C_BY:-330} ] && { bash scripts/maint/wall-ab.sh --runs 2 --jsonl $O/x100-pipe-c.jsonl -- g1 "$P | parcomp -q -9 --devices 0 > /dev/null" g2 "$P | parcomp -q -9 > /dev/null" dd "$P | dd bs=4M status=none > /dev/null" 2>&1 | tail -3; echo "($(el) s)"; }
fi
rm -rf $W /tmp/parcomp-ab; gzip -f $O/*.json 2>/dev/null; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(el) s"
