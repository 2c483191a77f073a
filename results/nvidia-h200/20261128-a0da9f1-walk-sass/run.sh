#!/usr/bin/env bash
# a0da9f1 on one GPU: the .bz2 decoder's walk (group_starts_kernel) on the tarball's bzip2 -9 file,
# Nsight Compute's full set with per-instruction (SASS) stall samples, to see where a lookup's time goes.
set -u
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b24.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
export PARCOMP_DATA=/tmp/parcomp-data TMPDIR=/dev/shm
python3 datasets/fetch.py linux --mirror .data/mirror --cache $PARCOMP_DATA > $O/fetch.log 2>&1 || { cat $O/fetch.log; exit 2; }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; parcomp --version | tail -1; ncu --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
F='^bz2\.decompress/gpu\.kernels/linux-2\.6\.11\.1\.tar/'
timeout 300 ncu --clock-control none -k regex:group_starts -c 1 --set full --import-source no -f -o $O/gs parcomp-bench --benchmark_filter="$F" --parcomp_once > $O/ncu.log 2>&1; echo "ncu rc $?"; tail -3 $O/ncu.log
ncu -i $O/gs.ncu-rep --page source --csv --print-source sass > $O/gs-sass.csv 2> $O/sass.err; echo "sass rc $? $(wc -l < $O/gs-sass.csv) lines"; head -c 600 $O/sass.err
ncu -i $O/gs.ncu-rep --page details --csv > $O/gs-details.csv 2>&1; echo "details rc $?"
grep -E '"(Duration|SM Frequency|Elapsed Cycles|Registers Per Thread|Achieved Occupancy|Executed Ipc Active|Dynamic Shared Memory Per Block|L1/TEX Hit Rate)"' $O/gs-details.csv | cut -c1-200
gzip -f $O/*.log $O/*.csv
