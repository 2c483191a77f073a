#!/usr/bin/env bash
# 25 copies of the Linux tarball (5.2 GB) and the tarball, bz2-d-cpu-start fa23377 against main 55fddaf and a8a96f7 (front:
# CPU workers beside a GPU take the oldest block; from n10a.sh's /tmp/u, else .data/mini11.tar.xz without it)
# on one H200: -d to /dev/null with 0, 4, 8, 12 CPU workers kept beside the GPU; -d to a file beside cat; -9 with CPU
# workers kept, fewer blocks in flight (448, 512) and glibc's mmap threshold fixed; zstd -3 -T0; the tarball -9; traces.
# Writes $OUT/x.tar.
set -u
S=$(date +%s)
# The bundle n10a.sh left in /tmp/u on a warm machine, else .data/mini11.tar.xz.
if [ -x /tmp/u/bundle/parcomp-main ] && [ -x /tmp/u/bundle/parcomp ]; then B=/tmp/u/bundle
else mkdir -p /tmp/m; tar xJf .data/mini11.tar.xz -C /tmp/m || exit 2; B=/tmp/m/bundle; fi
W=/dev/shm/x; O=$OUT/x; mkdir -p $W $O; chmod 755 $W; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log -1 --format=%H; for p in parcomp parcomp-main parcomp-front parcomp-ie; do [ -x $B/$p ] && $p --version | tail -1; done; zstd --version; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
[ -n "${SMALL:-}" ] && { head -c 20000000 $W/x25 > $W/x2; mv $W/x2 $W/x25; head -c 8000000 $W/l.tar > $W/l2; mv $W/l2 $W/l.tar; }
sha256sum $W/l.tar >> $O/env.txt
FD=(); FF=(); FC=(); FT=()  # rows of a8a96f7, where its binary came
if [ -x $B/parcomp-front ]; then
  FD=(front.b8 "parcomp-front -q -d --cpu-beside-gpus 8 -c $W/x25.bz2 > /dev/null")
  FF=(front.b8 "parcomp-front -q -f -d --cpu-beside-gpus 8 -o {out} $W/x25.bz2")
  FC=(front.b8 "parcomp-front -q -9 --cpu-beside-gpus 8 -c $W/x25 > /dev/null")
  FT=(front "parcomp-front -q -9 -c $W/l.tar > /dev/null")
fi
FI=()  # 4d086c1 (main 55fddaf with the lanes letting their batch's input go once uploaded), where its binary came
[ -x $B/parcomp-ie ] && FI=(ie "parcomp-ie -q -9 -c $W/x25 > /dev/null" ie.f448 "parcomp-ie -q -9 --blocks-in-flight 448 -c $W/x25 > /dev/null")
parcomp -q -9 -c $W/x25 > $W/x25.bz2
parcomp-main -q -9 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9: main writes the same bytes" >> $O/env.txt
parcomp -q -9 --cpu-beside-gpus 8 -c $W/x25 | cmp - $W/x25.bz2 && echo "x25 -9 --cpu-beside-gpus 8: the same bytes" >> $O/env.txt
for m in "" "--cpu-beside-gpus 8"; do parcomp -q -d $m -c $W/x25.bz2 | cmp - $W/x25 && echo "x25 -d $m: the input" >> $O/env.txt; done
cat $O/env.txt
parcomp -v -d --trace $O/x25d-trace.json -c $W/x25.bz2 2> $O/x25d-v.txt > /dev/null; tail -1 $O/x25d-v.txt
parcomp -v -d --cpu-beside-gpus 8 --trace $O/x25d-trace-b8.json -c $W/x25.bz2 2> $O/x25d-v-b8.txt > /dev/null; tail -1 $O/x25d-v-b8.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/x25-d.jsonl -- new "parcomp -q -d -c $W/x25.bz2 > /dev/null" main "parcomp-main -q -d -c $W/x25.bz2 > /dev/null" new.b4 "parcomp -q -d --cpu-beside-gpus 4 -c $W/x25.bz2 > /dev/null" new.b8 "parcomp -q -d --cpu-beside-gpus 8 -c $W/x25.bz2 > /dev/null" new.b12 "parcomp -q -d --cpu-beside-gpus 12 -c $W/x25.bz2 > /dev/null" "${FD[@]}" 2>&1 | tail -6; echo "($(( $(date +%s) - S )) s so far)"
bash scripts/maint/wall-ab.sh --runs 4 --work /tmp/parcomp-ab --jsonl $O/x25-file.jsonl -- new "parcomp -q -f -d -o {out} $W/x25.bz2" main "parcomp-main -q -f -d -o {out} $W/x25.bz2" new.b8 "parcomp -q -f -d --cpu-beside-gpus 8 -o {out} $W/x25.bz2" "${FF[@]}" cat "cat $W/x25 > {out}" 2>&1 | tail -5; echo "($(( $(date +%s) - S )) s so far)"
parcomp -v -9 --cpu-beside-gpus 8 --trace $O/x25c-trace-b8.json -c $W/x25 2> $O/x25c-v-b8.txt > /dev/null; tail -1 $O/x25c-v-b8.txt
M="env GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072"
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/x25-c.jsonl -- new "parcomp -q -9 -c $W/x25 > /dev/null" main "parcomp-main -q -9 -c $W/x25 > /dev/null" new.b4 "parcomp -q -9 --cpu-beside-gpus 4 -c $W/x25 > /dev/null" new.b8 "parcomp -q -9 --cpu-beside-gpus 8 -c $W/x25 > /dev/null" "${FC[@]}" new.f448 "parcomp -q -9 --blocks-in-flight 448 -c $W/x25 > /dev/null" new.f512 "parcomp -q -9 --blocks-in-flight 512 -c $W/x25 > /dev/null" new.M "$M $B/parcomp -q -9 -c $W/x25 > /dev/null" "${FI[@]}" zstd3 "zstd -q -3 -T0 -c $W/x25 > /dev/null" 2>&1 | tail -11; echo "($(( $(date +%s) - S )) s so far)"
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/l.tar-c.jsonl -- new "parcomp -q -9 -c $W/l.tar > /dev/null" main "parcomp-main -q -9 -c $W/l.tar > /dev/null" new.b8 "parcomp -q -9 --cpu-beside-gpus 8 -c $W/l.tar > /dev/null" "${FT[@]}" lbzip2 "lbzip2 -9 -c $W/l.tar > /dev/null" 2>&1 | tail -5
head -c 5000000 $W/l.tar > $W/t5; parcomp -q -9 -c $W/t5 > $W/t5.bz2; lbzip2 -9 -c $W/t5 > $W/t5.lbz2; parcomp -q --format parcomp -c $W/t5 > $W/t5.pcmp
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/t5.jsonl -- c.new "parcomp -q -9 -c $W/t5 > /dev/null" c.pcmp "parcomp -q --format parcomp -c $W/t5 > /dev/null" c.lbzip2 "lbzip2 -9 -c $W/t5 > /dev/null" d.new "parcomp -q -d -c $W/t5.bz2 > /dev/null" d.lbz "parcomp -q -d -c $W/t5.lbz2 > /dev/null" d.pcmp "parcomp -q -d -c $W/t5.pcmp > /dev/null" d.lbzip2 "lbzip2 -d -c $W/t5.lbz2 > /dev/null" 2>&1 | tail -7
rm -rf $W /tmp/parcomp-ab; gzip -f $O/*.json 2>/dev/null; tar cf $OUT/x.tar -C $OUT x; rm -rf $O
echo "took $(( $(date +%s) - S )) s"
