#!/usr/bin/env bash
# Two GPUs of one host, a4ff3b1: whole batches per GPU against batches split among the GPUs.
# Compression (-9 and the parcomp format) with --gpu-batch 256 (128 a GPU, one GPU's default)
# against the default (64 a GPU); decompression with --gpu-batch 512 (256 a GPU) and fewer blocks
# in flight; one GPU beside them. Peak RSS from each run.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b21.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $N"; parcomp --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
sha256sum $W/l.tar $W/x25 >> $O/env.txt
p="parcomp -q -f"; AB="bash scripts/maint/wall-ab.sh"
echo "== -9 x25 ($(left) s left)"
$AB --runs 5 --jsonl $O/c.jsonl -- one "$p -9 --devices 0 -c $W/x25 > /dev/null" split "$p -9 -c $W/x25 > /dev/null" whole "$p -9 --gpu-batch 256 -c $W/x25 > /dev/null" \
  whole.lanes2 "$p -9 --gpu-batch 256 --gpu-lanes 2 -c $W/x25 > /dev/null" 2>&1 | tail -4
echo "== parcomp format x25 ($(left) s left)"
$AB --runs 3 --jsonl $O/pc.jsonl -- one "$p --format parcomp --devices 0 -c $W/x25 > /dev/null" split "$p --format parcomp -c $W/x25 > /dev/null" \
  whole "$p --format parcomp --gpu-batch 256 -c $W/x25 > /dev/null" 2>&1 | tail -3
$p -9 --gpu-batch 256 -c $W/x25 > $W/x25.bz2; echo "whole -9 round trip: $(parcomp -d --cpu -c $W/x25.bz2 | cmp - $W/x25 && echo same)" | tee -a $O/env.txt
$p -9 --gpu-batch 256 --trace $O/trace-c-2gpu-whole.json -c $W/x25 > /dev/null
echo "== -d x25 ($(left) s left)"
f=$W/x25.bz2
$AB --runs 5 --jsonl $O/d.jsonl -- one "$p -d --devices 0 -c $f > /dev/null" split "$p -d -c $f > /dev/null" whole "$p -d --gpu-batch 512 -c $f > /dev/null" \
  whole.f1536 "$p -d --gpu-batch 512 --blocks-in-flight 1536 -c $f > /dev/null" whole.f1024 "$p -d --gpu-batch 512 --blocks-in-flight 1024 -c $f > /dev/null" 2>&1 | tail -5
$p -d --gpu-batch 512 --trace $O/trace-d-2gpu-whole.json -c $f > /dev/null
gzip -f $O/*.json; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
