#!/usr/bin/env bash
# Session 16, two H200s (nvidia-h200-x2 kind) at 4a17c92: (1) tool.e2e on 25 copies of the tarball
# for parcomp (both formats, both ways, and lbzip2's .bz2) and cat, with both GPUs (gpus=2) and with
# one (CUDA_VISIBLE_DEVICES=0: gpus=1), 3 repetitions each, outputs in /dev/shm; (2) same-host A/B
# of .bz2 decompression with collect()'s pieces of 32 and 64 MiB (the default), on one GPU and both:
# wall and peak RSS, 3 runs each, labels in turn, every output compared.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
export PARCOMP_DATA=/tmp/pd PARCOMP_TOOL_DIR=/dev/shm/tool
python3 datasets/fetch.py linux --mirror "$D/mirror" --cache /tmp/pd 2>&1 | tail -1 >&2
F='tool.e2e/(parcomp\.(fast|bz2)\.(compress|decompress|lbzip2-made\.decompress)|copy\.cat)/linux-2.6.11.1.tar.x25/'
timeout 250 parcomp-bench --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_out="$O/tool-x25-gpus2.json" > "$O/bench2.log" 2>&1
echo "bench gpus=2 exit $?" | tee -a "$O/env.txt" >&2
CUDA_VISIBLE_DEVICES=0 timeout 250 parcomp-bench --benchmark_filter="$F" --benchmark_repetitions=3 --benchmark_out="$O/tool-x25-gpus1.json" > "$O/bench1.log" 2>&1
echo "bench gpus=1 exit $?" | tee -a "$O/env.txt" >&2
X=/dev/shm/tool/linux-2.6.11.1.tar.x25
[ -s "$X" ] || { X=/dev/shm/x25.tar; for ((k = 0; k < 25; k++)); do cat /tmp/pd/linux-2.6.11.1.tar; done > "$X"; }
echo "x25: $X $(sha256sum < "$X")" | tee -a "$O/env.txt" >&2
p="parcomp -q -f"
$p -9 -o /dev/shm/x25.bz2 "$X" || exit 1
bash "$D/wall-ab.sh" --runs 3 --ref "$X" --jsonl "$O/x25d-piece.jsonl" -- \
  p64.1gpu "$p -d --devices 0 -o {out} /dev/shm/x25.bz2" p32.1gpu "$p -d --devices 0 --gpu-host-piece 32 -o {out} /dev/shm/x25.bz2" \
  p64.all "$p -d -o {out} /dev/shm/x25.bz2" p32.all "$p -d --gpu-host-piece 32 -o {out} /dev/shm/x25.bz2" 2>&1 | tail -4 | tee -a "$O/env.txt" >&2
gzip "$O/bench2.log" "$O/bench1.log"
(cd "$O" && tar cf logs.tar *.log.gz && rm -f *.log.gz)
echo done >&2
