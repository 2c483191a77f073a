#!/usr/bin/env bash
# Session 14, second call: this tree's bundle (bundle-core.tar.xz) against 052a1da's parcomp
# (parcomp-052a1da.xz), outputs on /tmp (the host's disk): 25 copies decompressed, the parcomp format
# and lbzip2 -9's .bz2 (new: output blocks reserved ahead, the lanes' parallel parse and reused file
# buffer, .bz2's 4 batches in flight and pinned downloads; and each of those switched off where an
# option can); the tarball's; traces of the new runs; then every GPU test.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-052a1da.xz" > "$B/parcomp-old" && chmod +x "$B/parcomp-old"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp --version | tail -2; parcomp-old --version | tail -1; lbzip2 --version 2>&1 | head -1
  df -hT /dev/shm /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); nw="parcomp -q -f"; od="parcomp-old -q -f"
$nw -o "$W/x25.pcmp" "$W/x25.tar" || exit 1
s0=$EPOCHREALTIME; lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; echo "lbzip2 -9 x25: $(awk -v a=$s0 -v b=$EPOCHREALTIME 'BEGIN{print b-a}') s" | tee -a "$O/env.txt" >&2
echo "==> 25 copies" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" \
  fastd.old "$od -d -o {out} $W/x25.pcmp" fastd.new "$nw -d -o {out} $W/x25.pcmp" fastd.new.noprealloc "$nw -d --no-preallocate -o {out} $W/x25.pcmp" \
  lmade.old "$od -d -o {out} $W/x25.l.bz2" lmade.new "$nw -d -o {out} $W/x25.l.bz2" \
  lmade.new.cap784 "$nw -d --blocks-in-flight 784 -o {out} $W/x25.l.bz2" lmade.new.noprealloc "$nw -d --no-preallocate -o {out} $W/x25.l.bz2"
mkdir -p /tmp/traces
$nw -d --trace /tmp/traces/x25-fastd.json --stats /tmp/traces/x25-fastd.stats.json -o /tmp/ab-out/t "$W/x25.pcmp"
$nw -d --trace /tmp/traces/x25-lmade.json --stats /tmp/traces/x25-lmade.stats.json -o /tmp/ab-out/t "$W/x25.l.bz2"
rm -f /tmp/ab-out/t; tar czf "$O/traces.tgz" -C /tmp traces
echo "==> the tarball" >&2
T=$W/l.tar; lbzip2 -9 -n $n -c $T > $W/l.l.bz2; $nw -o $W/l.pcmp $T
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$T" --jsonl "$O/tar-d.jsonl" -- \
  cat "cat $T > {out}" lbzip2 "lbzip2 -d -n$n -c $W/l.l.bz2 > {out}" lmade.old "$od -d -o {out} $W/l.l.bz2" lmade.new "$nw -d -o {out} $W/l.l.bz2" \
  pcmp.old "$od -d -o {out} $W/l.pcmp" pcmp.new "$nw -d -o {out} $W/l.pcmp"
echo "==> GPU tests" >&2
timeout 420 parcomp-tests-gpu > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2
tail -n 3 "$O/gpu-tests.log" >&2; grep -E '^\[  (SKIPPED|FAILED) ' "$O/gpu-tests.log" >&2
echo done >&2
