#!/usr/bin/env bash
# One job's same-host A/B of whole-program wall times on 25 copies of the Linux tarball
# (5.2 GB, in /dev/shm): the output written by write() calls against mapped windows (parcomp
# --output-io write / auto), on one GPU against every GPU of the host (--devices 0 / default), both
# formats both ways, beside `cat in > out`, lbzip2 and zstd -3; the GPU engine tests first (with
# two GPUs, EngineGpu.EveryGpuTakesWorkWithTheSameBytes runs). Output under $OUT (or DIR):
# ab-*.jsonl (scripts/maint/wall-ab.sh), sink.txt (FileSink alone: write() against mapped windows),
# gpu-tests.log, env.txt.
#
#   device-e2e-ab.sh BUNDLE_TAR TARBALL_XZ [--runs N] [--out DIR] [--sinkbench BIN] [--against PARCOMP.xz] [--work DIR]
#
# --against: instead, the bundle's parcomp on every GPU and on one against another parcomp binary
# (xz-compressed) on every GPU, both formats both ways, with `cat in > out`; also the bundle's
# parcomp format decompression with write() calls (--output-io write).
# --work: the folder the programs' outputs go to (default /dev/shm/parcomp-ab, a tmpfs; the
# bench's tool.e2e writes into $TMPDIR, /tmp, which is a disk on some hosts); its file system is
# in env.txt.
set -uo pipefail
bundle_tar=$1 tarball=$2; shift 2
runs=3 out=${OUT:-$PWD/e2e-ab} sinkbench="" against="" work=/dev/shm/parcomp-ab
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --sinkbench) sinkbench=$2; shift 2 ;;
    --against) against=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) echo "device-e2e-ab: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out" /tmp/ab-bundle
tar xf "$bundle_tar" -C /tmp/ab-bundle || exit 2
B=/tmp/ab-bundle/bundle
export PATH=$B:$PATH
W=/dev/shm/e2e-ab
mkdir -p "$W"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; uname -r
  parcomp --version | tail -1; mkdir -p "$work"; df -hT /dev/shm "$work"; cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null; } > "$out/env.txt" 2>&1
cat "$out/env.txt" >&2
ngpu=$(nvidia-smi -L | grep -c '^GPU')
[ -s "$W/x25.tar" ] || {
  xz -dc "$tarball" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"
}
sha256sum "$W/l.tar" >> "$out/env.txt"
echo "==> GPU engine tests" >&2
parcomp-tests-gpu --gtest_filter='EngineGpu.*:Bz2Gpu.*:EngineTrace*' > "$out/gpu-tests.log" 2>&1
echo "gpu tests exit $?" >&2
tail -n 3 "$out/gpu-tests.log" >&2
grep -E '^\[  (SKIPPED|FAILED) ' "$out/gpu-tests.log" >&2
if [ -n "$sinkbench" ]; then
  for r in 1 2; do for m in write map; do for kib in 65536 900; do "$sinkbench" $m 4096 $kib; done; done; done > "$out/sink.txt" 2>&1
  cat "$out/sink.txt" >&2
fi
one=(--devices 0)
p="parcomp -q -f"
$p --format parcomp -o "$W/x25.pcmp" "$W/x25.tar" && $p -9 -o "$W/x25.bz2" "$W/x25.tar" && lbzip2 -9 -n "$(nproc)" -c "$W/x25.tar" > "$W/x25.l.bz2" || exit 1
ab=$(command -v wall-ab.sh)
ab_work=(--work "$work")
if [ -n "$against" ]; then
  xz -dc "$against" > /tmp/parcomp-old && chmod +x /tmp/parcomp-old && cp /tmp/parcomp-old "$B/parcomp-old" || exit 2
  parcomp-old --version | tail -1 >> "$out/env.txt"
  o="parcomp-old -q -f"
  bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.tar" --jsonl "$out/ab-decompress.jsonl" -- cat "cat $W/x25.tar > {out}" \
    fastd.new.all "$p -d -o {out} $W/x25.pcmp" fastd.new.all.write "$p -d --output-io write -o {out} $W/x25.pcmp" fastd.new.1gpu "$p -d ${one[*]} -o {out} $W/x25.pcmp" fastd.old.all "$o -d -o {out} $W/x25.pcmp" \
    bz2d.new.all "$p -d -o {out} $W/x25.l.bz2" bz2d.new.1gpu "$p -d ${one[*]} -o {out} $W/x25.l.bz2" bz2d.old.all "$o -d -o {out} $W/x25.l.bz2"
  bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.pcmp" --jsonl "$out/ab-compress.jsonl" -- \
    fastc.new.all "$p --format parcomp -o {out} $W/x25.tar" fastc.new.1gpu "$p --format parcomp ${one[*]} -o {out} $W/x25.tar" fastc.old.all "$o --format parcomp -o {out} $W/x25.tar"
  bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.bz2" --jsonl "$out/ab-compress.jsonl" -- \
    bz2c.new.all "$p -9 -o {out} $W/x25.tar" bz2c.new.1gpu "$p -9 ${one[*]} -o {out} $W/x25.tar" bz2c.old.all "$o -9 -o {out} $W/x25.tar"
  $p -d --trace "$out/trace-fastd-all.json" -o "$W/t.tar" "$W/x25.pcmp"
  $p -9 --trace "$out/trace-bz2c-all.json" -o "$W/t.bz2" "$W/x25.tar"
  rm -f "$W/t.tar" "$W/t.bz2"
  gzip -f "$out"/trace-*.json
  exit 0
fi
echo "==> decompression" >&2
args=(cat "cat $W/x25.tar > {out}"
  fastd.1gpu.write "$p -d ${one[*]} --output-io write -o {out} $W/x25.pcmp" fastd.1gpu.auto "$p -d ${one[*]} -o {out} $W/x25.pcmp"
  bz2d.1gpu.write "$p -d ${one[*]} --output-io write -o {out} $W/x25.l.bz2" bz2d.1gpu.auto "$p -d ${one[*]} -o {out} $W/x25.l.bz2")
[ "$ngpu" -ge 2 ] && args+=(fastd.all.write "$p -d --output-io write -o {out} $W/x25.pcmp" fastd.all.auto "$p -d -o {out} $W/x25.pcmp"
  bz2d.all.write "$p -d --output-io write -o {out} $W/x25.l.bz2" bz2d.all.auto "$p -d -o {out} $W/x25.l.bz2")
args+=(lbzip2.d "lbzip2 -d -n $(nproc) -c $W/x25.l.bz2 > {out}")
bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.tar" --jsonl "$out/ab-decompress.jsonl" -- "${args[@]}"
echo "==> compression (.pcmp and .bz2 checked against the first run's bytes)" >&2
args=(fastc.1gpu "$p --format parcomp ${one[*]} -o {out} $W/x25.tar")
[ "$ngpu" -ge 2 ] && args+=(fastc.all "$p --format parcomp -o {out} $W/x25.tar")
bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.pcmp" --jsonl "$out/ab-compress.jsonl" -- "${args[@]}"
args=(bz2c.1gpu "$p -9 ${one[*]} -o {out} $W/x25.tar")
[ "$ngpu" -ge 2 ] && args+=(bz2c.all "$p -9 -o {out} $W/x25.tar")
bash "$ab" "${ab_work[@]}" --runs "$runs" --ref "$W/x25.bz2" --jsonl "$out/ab-compress.jsonl" -- "${args[@]}"
bash "$ab" "${ab_work[@]}" --runs "$runs" --jsonl "$out/ab-compress.jsonl" -- \
  zstd3.c "zstd -3 -T0 -q -c $W/x25.tar > {out}"
echo "==> traces" >&2
$p -d --trace "$out/trace-fastd-all.json" -o "$W/t.tar" "$W/x25.pcmp"
$p -d --trace "$out/trace-bz2d-all.json" -o "$W/t.tar" "$W/x25.l.bz2"
$p -9 --trace "$out/trace-bz2c-all.json" -o "$W/t.bz2" "$W/x25.tar"
rm -f "$W/t.tar" "$W/t.bz2"
gzip -f "$out"/trace-*.json
