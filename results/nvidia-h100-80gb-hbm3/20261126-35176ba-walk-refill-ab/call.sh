#!/usr/bin/env bash
# Session 14, tenth call: the walk's step without a branch on the GPU (this tree) against 3741409's walk
# (its common step in one field): the GPU .bz2 tests, the same under memcheck with 2,000 mutated files, the
# decoder's kernels by Nsight Compute on the tarball as bzip2 -9 writes it (3 runs each, labels in
# turn), and 25 copies of lbzip2 -9's file decompressed (5 runs each, labels in turn) beside cat.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/ncu
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-3741409.xz" > "$B/parcomp-old" && chmod +x "$B/parcomp-old"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; parcomp-old --version | tail -1; ncu --version | tail -1; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
echo "==> GPU tests" >&2
timeout 200 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:EngineGpu.*' > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2
PARCOMP_BZ2_FUZZ_FILES=2000 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' > "$O/bz2-memcheck.log" 2>&1
echo "memcheck exit $?" | tee -a "$O/env.txt" >&2; tail -n 2 "$O/bz2-memcheck.log" >&2
PARCOMP_BZ2_FUZZ_FILES=300 timeout 120 compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:-*Encoder*' > "$O/bz2-initcheck.log" 2>&1
echo "initcheck exit $?" | tee -a "$O/env.txt" >&2; tail -n 2 "$O/bz2-initcheck.log" >&2
echo "==> kernels" >&2
parcomp --cpu -9 -c "$W/l.tar" > /tmp/b.bz2
for r in 1 2 3; do for v in parcomp-old parcomp; do
  ncu --metrics gpu__time_duration.sum --csv --log-file "/tmp/ncu/$v-$r.csv" $v -d --gpu -c /tmp/b.bz2 > /tmp/ncu/out 2>/dev/null; cmp -s /tmp/ncu/out "$W/l.tar" || echo "$v: output differs" | tee -a "$O/env.txt" >&2
done; done
rm -f /tmp/ncu/out; tar czf "$O/ncu.tgz" -C /tmp ncu
echo "==> 25 copies" >&2
lbzip2 -9 -n "$(nproc)" -c "$W/x25.tar" > "$W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" lmade.old "parcomp-old -q -f -d -o {out} $W/x25.l.bz2" lmade.new "parcomp -q -f -d -o {out} $W/x25.l.bz2"
echo done >&2
