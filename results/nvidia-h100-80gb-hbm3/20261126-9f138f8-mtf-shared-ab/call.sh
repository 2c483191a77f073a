#!/usr/bin/env bash
# Session 15, the inverse MTF's lists in shared memory (this
# tree) against 295e5e9: the GPU .bz2 and engine tests; the decoder's kernels by Nsight
# Compute on the tarball as bzip2 -9 writes it (3 runs each, in turn, every output compared); the
# walk's source counters; the device-resident bench; memcheck (2,000 mutated files) and initcheck (300).
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/ncu /tmp/data
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH

xz -dc "$D/parcomp-295e5e9.xz" > "$B/parcomp-295e5e9" && chmod +x "$B/parcomp-295e5e9"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; nvcc --version | tail -1
  parcomp --version | tail -1; parcomp-295e5e9 --version | tail -1; ncu --version | tail -1; } > "$O/env.txt" 2>&1
python3 datasets/fetch.py linux --mirror "$D" --cache /tmp/data > "$O/fetch.log" 2>&1 || { tail "$O/fetch.log"; exit 2; }
T=$(find /tmp/data -name 'linux-2.6.11.1.tar' | head -1); sha256sum "$T" >> "$O/env.txt"; cat "$O/env.txt" >&2
timeout 200 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:EngineGpu.*' > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2
tail -n 3 "$O/gpu-tests.log" >&2
parcomp --cpu -9 -c "$T" > /tmp/b.bz2
for r in 1 2 3; do for v in parcomp-295e5e9 parcomp; do
  ncu --metrics gpu__time_duration.sum --csv --log-file "/tmp/ncu/$v-$r.csv" $v -d --gpu -c /tmp/b.bz2 > /tmp/out.tar 2>/dev/null; cmp -s /tmp/out.tar "$T" && echo "$v $r same" >> "$O/env.txt" || echo "$v: output differs" | tee -a "$O/env.txt" >&2
done; done
python3 - <<'PY' >&2
import csv,glob
for v in ("parcomp-295e5e9","parcomp"):
  for f in sorted(glob.glob(f'/tmp/ncu/{v}-[0-9].csv')):
    rows=list(csv.reader(l for l in open(f) if not l.startswith('==')))
    h=rows[0]; k=h.index('Kernel Name'); x=h.index('Metric Value')
    walk=sum(float(r[x].replace(',',''))/1e6 for r in rows[1:] if 'group_starts' in r[k])
    tot=sum(float(r[x].replace(',',''))/1e6 for r in rows[1:])
    print(v, f[-5], 'walk %.2f ms, all %.2f ms' % (walk, tot))
PY
tar czf "$O/ncu.tgz" -C /tmp ncu
PARCOMP_DATA=/tmp/data parcomp-bench --benchmark_filter='bz2.decompress/gpu.kernels/linux' --benchmark_repetitions=5 \
  --benchmark_format=json --benchmark_out="$O/bench.json" 2>&1 | grep -E "median|error|ERROR" >&2
PARCOMP_BZ2_FUZZ_FILES=2000 timeout 250 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*' > "$O/bz2-memcheck.log" 2>&1 &
PARCOMP_BZ2_FUZZ_FILES=300 timeout 250 compute-sanitizer --tool initcheck --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:-*Encoder*' > "$O/bz2-initcheck.log" 2>&1 &
PARCOMP_TEST_SMALL=1 PARCOMP_BZ2_FUZZ_FILES=100 timeout 250 compute-sanitizer --tool racecheck --kernel-name-exclude kns=cub:: --error-exitcode 99 --print-limit 50 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:-*Encoder*' > "$O/bz2-racecheck.log" 2>&1 &
wait %1; echo "memcheck exit $?" | tee -a "$O/env.txt" >&2; wait %2; echo "initcheck exit $?" | tee -a "$O/env.txt" >&2; wait %3; echo "racecheck exit $?" | tee -a "$O/env.txt" >&2
for t in memcheck initcheck racecheck; do grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$O/bz2-$t.log" | tail -2 >&2; gzip "$O/bz2-$t.log"; done
gzip "$O/gpu-tests.log"
echo done >&2
