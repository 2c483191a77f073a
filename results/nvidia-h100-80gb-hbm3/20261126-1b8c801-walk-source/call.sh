#!/usr/bin/env bash
# Session 15, third call: where the walk's warp waits, per SASS instruction (Nsight Compute's
# source counters of group_starts_kernel, the tarball as bzip2 -9 writes it), at 1b8c801.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/data
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; parcomp --version | tail -1; ncu --version | tail -1; } > "$O/env.txt" 2>&1
python3 datasets/fetch.py linux --mirror "$D" --cache /tmp/data > "$O/fetch.log" 2>&1 || { tail "$O/fetch.log"; exit 2; }
T=$(find /tmp/data -name 'linux-2.6.11.1.tar' | head -1); sha256sum "$T" >> "$O/env.txt"; cat "$O/env.txt" >&2
parcomp --cpu -9 -c "$T" > /tmp/b.bz2
ncu --section SourceCounters --section WarpStateStats --section LaunchStats --section SpeedOfLight --import-source yes -k regex:group_starts -c 1 \
  -f -o /tmp/walk parcomp -d --gpu -c /tmp/b.bz2 > /tmp/out.tar 2> "$O/ncu.log"; cmp -s /tmp/out.tar "$T" && echo same >&2
ncu -i /tmp/walk.ncu-rep --page source --csv --print-source sass > "$O/walk-sass.csv" 2>> "$O/ncu.log"
ncu -i /tmp/walk.ncu-rep --page details --csv > "$O/walk-details.csv" 2>> "$O/ncu.log"
cp /tmp/walk.ncu-rep "$O/"; gzip "$O/walk-sass.csv"
head -c 600 <(zcat "$O/walk-sass.csv.gz") >&2
echo done >&2
