#!/usr/bin/env bash
# a0da9f1 on one GPU (or two): the .bz2 decoder's kernels, device-resident, on the tarball's bzip2 -9
# file: all 231 blocks in one batch against batches of 32, 64 and 128 (one stream, and two streams
# taking turns: bz2.decompress/gpu.kernels.b<B>[x2]), the walk's configurations, and the file twice
# at once on two streams (gpu.kernels.twice[.w<B>t<N>]), 5 repetitions interleaved; Nsight Compute
# per kernel; then the walk's configurations as whole programs (-d of 25 copies to /dev/null) on one
# GPU, and on two where there are two (wall-ab, Williams order, 4 runs each).
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b24.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
export PARCOMP_DATA=/tmp/parcomp-data TMPDIR=/dev/shm
python3 datasets/fetch.py linux --mirror .data/mirror --cache $PARCOMP_DATA > $O/fetch.log 2>&1 || { cat $O/fetch.log; exit 2; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
t=150; timeout $t compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3; grep -c "^\[       OK" $O/memcheck.log
R="--benchmark_repetitions=5 --benchmark_enable_random_interleaving=true"
parcomp-bench --benchmark_filter='^bz2\.decompress/gpu\.kernels(\.b[0-9]+(x2)?|\.w1[12]t(64|256)|\.twice(\.w1[12]t(64|256))?)?/linux-2\.6\.11\.1\.tar/' $R --benchmark_out=$O/kernels.json > $O/kernels.log 2>&1; echo "kernels rc $? ($(left) s left)"
grep -E "median" $O/kernels.log | cut -c1-160
G=$(nvidia-smi -L | wc -l)
W=/dev/shm/w; mkdir -p $W; xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
p="parcomp -q -f"; $p -9 -c $W/x25 > $W/x25.bz2; f=$W/x25.bz2; sha256sum $W/x25 $f >> $O/env.txt
echo "11x64 round trip: $($p -d --gpu-walk 11x64 -c $f | cmp - $W/x25 && echo same)" | tee -a $O/env.txt; rm -f $W/x25
for d in "--devices 0" $([ $G -gt 1 ] && echo all); do [ "$d" = all ] && d=""
  bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/walk$([ -z "$d" ] && echo -2gpu || echo -1gpu).jsonl -- w12x256 "$p -d $d -c $f > /dev/null" \
    w12x64 "$p -d $d --gpu-walk 12x64 -c $f > /dev/null" w11x256 "$p -d $d --gpu-walk 11x256 -c $f > /dev/null" w11x64 "$p -d $d --gpu-walk 11x64 -c $f > /dev/null" 2>&1 | tail -4
done
# Per kernel (Nsight Compute, one iteration each): all blocks at once against batches of 128 on one stream.
[ $(left) -gt 80 ] && timeout $(( $(left) - 20 )) bash scripts/profile.sh '^bz2\.decompress/gpu\.kernels(\.b128)?/linux-2\.6\.11\.1\.tar/' --bin $B --out $O/ncu > $O/ncu.log 2>&1; echo "ncu rc $? ($(left) s left)"; head -40 $O/ncu/profile.md 2>/dev/null
gzip -f $O/*.log; tar cf $OUT/r.tar -C $OUT r
echo "done ($(left) s left)"
