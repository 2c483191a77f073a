#!/usr/bin/env bash
# Session 16, two GPUs (nvidia-h200-x2 kind): (1) the engine's GPU tests, with the test that needs
# two GPUs and the warm-up test (a mutant that warms every device must fail it); (2) each GPU's
# CUDA start-up as -v reports it, one GPU (--devices 0) and both; (3) same-host A/B of 25 copies of
# the tarball compressed (.bz2 -9 and the parcomp format) on one GPU and both, and with both GPUs
# each taking a whole batch (--gpu-batch 256: the room of two) or four lanes; .bz2 decompressed on
# one and both; cat beside; 3 runs each, labels in turn, in /dev/shm as the earlier x2 runs;
# (4) traces of .bz2 compression on one GPU and on both. The bundle without parcomp-bench (64 MiB).
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/mut
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; df -hT /dev/shm; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
timeout 200 parcomp-tests-gpu --gtest_filter='EngineGpu.*' > "$O/engine-tests.log" 2>&1; echo "engine gpu tests exit $?" | tee -a "$O/env.txt" >&2
grep -E "^\[  (FAILED|SKIPPED|PASSED) " "$O/engine-tests.log" | tee -a "$O/env.txt" >&2
xz -dc "$D/tests-warmup-all.xz" > /tmp/mut/t && chmod +x /tmp/mut/t
LD_LIBRARY_PATH=$B timeout 100 /tmp/mut/t --gtest_filter='EngineGpu.WarmUp*' > "$O/mutant-warmup-all.log" 2>&1; rc=$?
echo "mutant warmup-all: exit $rc ($([ $rc -ne 0 ] && echo killed || echo survived))" | tee -a "$O/env.txt" >&2
grep -E "Failure|exit 1|Expected|Which is|WEXIT" "$O/mutant-warmup-all.log" | head -5 >&2
xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"
sha256sum "$W/l.tar" "$W/x25.tar" | tee -a "$O/env.txt" >&2
p="parcomp -q -f"
for dev in "--devices 0" "--devices 1" "" "--devices 0" ""; do
  parcomp -v -f -9 $dev -o /tmp/l.bz2 "$W/l.tar" 2>&1 | grep -E "ready|GPU" | sed "s/^/[${dev:-all}] /" | tee -a "$O/startup.txt" >&2
done
$p -9 -o "$W/x25.bz2" "$W/x25.tar" || exit 1
bash "$D/wall-ab.sh" --runs 3 --jsonl "$O/x25c.jsonl" -- \
  bz2c.1gpu "$p -9 --devices 0 -o {out} $W/x25.tar" bz2c.all "$p -9 -o {out} $W/x25.tar" \
  fastc.1gpu "$p --devices 0 -o {out} $W/x25.tar" fastc.all "$p -o {out} $W/x25.tar" \
  bz2c.all.batch256 "$p -9 --gpu-batch 256 -o {out} $W/x25.tar" bz2c.all.lanes4 "$p -9 --gpu-lanes 4 -o {out} $W/x25.tar" 2>&1 | tail -8 | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" bz2d.1gpu "$p -d --devices 0 -o {out} $W/x25.bz2" bz2d.all "$p -d -o {out} $W/x25.bz2" 2>&1 | tail -4 | tee -a "$O/env.txt" >&2
# the bytes of one GPU and of two are bzip2 -9's bytes either way
$p -9 --devices 0 -o /dev/shm/one.bz2 "$W/x25.tar" && cmp /dev/shm/one.bz2 "$W/x25.bz2" && echo "x25 -9: one GPU's bytes = both GPUs' bytes" | tee -a "$O/env.txt" >&2
rm -f /dev/shm/one.bz2
for g in all 1gpu; do dev=""; [ $g = 1gpu ] && dev="--devices 0"
  $p -9 $dev --trace /tmp/t-$g.json -o /dev/shm/t.bz2 "$W/x25.tar"; gzip -9 -c /tmp/t-$g.json > "$O/trace-x25-bz2c-$g.json.gz"; done
gzip "$O/engine-tests.log" "$O/mutant-warmup-all.log"
(cd "$O" && tar cf logs.tar *.log.gz && rm -f *.log.gz)
echo done >&2
