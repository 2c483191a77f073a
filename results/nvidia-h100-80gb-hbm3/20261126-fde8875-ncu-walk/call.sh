#!/usr/bin/env bash
# Session 14, sixth call: where the .bz2 GPU decoder's time goes at HEAD, on the Linux tarball made
# by bzip2 -9 (parcomp --cpu -9 writes bzip2 -9's bytes): every kernel's time (Nsight Compute,
# serialised), the walk's source counters (group_starts_kernel), and the device-resident bench.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/data
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; parcomp --version | tail -1; ncu --version | tail -1; } > "$O/env.txt" 2>&1
python3 datasets/fetch.py linux --mirror "$D" --cache /tmp/data > "$O/fetch.log" 2>&1 || { tail "$O/fetch.log"; exit 2; }
T=$(find /tmp/data -name 'linux-2.6.11.1.tar' | head -1); sha256sum "$T" >> "$O/env.txt"; cat "$O/env.txt" >&2
parcomp --cpu -9 -c "$T" > /tmp/b.bz2
ncu --metrics gpu__time_duration.sum --csv --log-file "$O/ncu-decompress.csv" parcomp -d --gpu -c /tmp/b.bz2 > /dev/null 2>&1
ncu --section SourceCounters --section WarpStateStats --section LaunchStats --section SpeedOfLight --import-source yes --kernel-name-base demangled \
  -k "regex:group_starts" -c 1 -f -o /tmp/walk parcomp -d --gpu -c /tmp/b.bz2 > /dev/null 2> "$O/ncu-walk.log"
ncu -i /tmp/walk.ncu-rep --page source --csv --print-source cuda,sass > "$O/walk-source.csv" 2>> "$O/ncu-walk.log"
ncu -i /tmp/walk.ncu-rep --page details --csv > "$O/walk-details.csv" 2>> "$O/ncu-walk.log"
PARCOMP_DATA=/tmp/data parcomp-bench --benchmark_filter='bz2.decompress/gpu.kernels/linux' --benchmark_repetitions=5 \
  --benchmark_format=json --benchmark_out="$O/bench.json" 2>&1 | tail -12
gzip -9 "$O/walk-source.csv"
echo done >&2
