#!/usr/bin/env bash
# Session 16, two GPUs again (nvidia-h200-x2 kind), 4a17c92: the GPU decoder's collect() in
# pieces of 64 MiB. (1) The .bz2 and engine GPU tests; a mutant of the piece's copy (every block
# of a piece copied to its start) must fail the .bz2 tests; memcheck on the .bz2 tests that collect
# in pieces (small sizes). (2) Same-host A/B, 25 copies of the tarball as bzip2 -9 (parcomp -9)
# and lbzip2 write them, decompressed in /dev/shm: pieces of 64 MiB (the default) against one
# piece the size of the batch (--gpu-host-piece 256: the old collect), on one GPU and on both, cat
# beside; wall and peak RSS, 3 runs each, labels in turn, every output compared.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/mut
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
timeout 200 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:EngineGpu.*' > "$O/tests.log" 2>&1; echo "bz2 + engine gpu tests exit $?" | tee -a "$O/env.txt" >&2
grep -E "^\[  (FAILED|SKIPPED|PASSED) " "$O/tests.log" | tee -a "$O/env.txt" >&2
xz -dc "$D/tests-piece-dest.xz" > /tmp/mut/t && chmod +x /tmp/mut/t
LD_LIBRARY_PATH=$B timeout 120 /tmp/mut/t --gtest_filter='Bz2Gpu.BlocksLibbz2Wrote*:Bz2Gpu.FalseCandidates*' > "$O/mutant-piece-dest.log" 2>&1; rc=$?
echo "mutant piece-dest: exit $rc ($([ $rc -ne 0 ] && echo killed || echo survived)); failed: $(grep '^\[  FAILED  \] Bz2Gpu' "$O/mutant-piece-dest.log" | sed 's/.*\] //; s/ (.*//' | sort -u | tr '\n' ' ')" | tee -a "$O/env.txt" >&2
PARCOMP_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 50 parcomp-tests-gpu \
  --gtest_filter='Bz2Gpu.BlocksLibbz2Wrote*:Bz2Gpu.FalseCandidates*' > "$O/memcheck.log" 2>&1; echo "memcheck exit $?" | tee -a "$O/env.txt" >&2
grep -E "ERROR SUMMARY|PASSED|FAILED" "$O/memcheck.log" | tail -3 >&2
xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"
sha256sum "$W/l.tar" "$W/x25.tar" | tee -a "$O/env.txt" >&2
n=$(nproc); p="parcomp -q -f"
$p -9 -o "$W/x25.bz2" "$W/x25.tar" || exit 1
lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"
for dev in "--devices 0" ""; do
  parcomp -v -f -d $dev -o /dev/shm/v.out "$W/x25.bz2" 2>&1 | grep -E "ready|GPU\(s\)" | sed "s/^/[${dev:-all}] /" | tee -a "$O/startup.txt" >&2; rm -f /dev/shm/v.out
done
bash "$D/wall-ab.sh" --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" \
  piece.1gpu "$p -d --devices 0 -o {out} $W/x25.bz2" whole.1gpu "$p -d --devices 0 --gpu-host-piece 256 -o {out} $W/x25.bz2" \
  piece.all "$p -d -o {out} $W/x25.bz2" whole.all "$p -d --gpu-host-piece 256 -o {out} $W/x25.bz2" \
  lpiece.all "$p -d -o {out} $W/x25.l.bz2" lwhole.all "$p -d --gpu-host-piece 256 -o {out} $W/x25.l.bz2" 2>&1 | tail -8 | tee -a "$O/env.txt" >&2
$p -d --trace /tmp/t.json -o /dev/shm/t.out "$W/x25.bz2"; gzip -9 -c /tmp/t.json > "$O/trace-x25-bz2d-all.json.gz"
gzip "$O/tests.log" "$O/mutant-piece-dest.log" "$O/memcheck.log"
(cd "$O" && tar cf logs.tar *.log.gz && rm -f *.log.gz)
echo done >&2
