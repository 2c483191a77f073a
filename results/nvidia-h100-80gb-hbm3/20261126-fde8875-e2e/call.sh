#!/usr/bin/env bash
# Session 14, fourth call (HEAD): this tree's bundle (bundle-core.tar.xz), outputs on /tmp (the host's
# disk, where the suite's tool.e2e writes), beside cat and lbzip2 in the same call:
# 25 copies both ways (the parcomp format and -9; lbzip2 -9's file decompressed), traced;
# the tarball both ways; the small files both ways.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out; S=/dev/shm/small; mkdir -p $S
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1
  df -hT /dev/shm /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; xz -dc "$D/dickens.xz" > $S/dickens
sha256sum "$W/l.tar" $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); p="parcomp -q -f"
echo "==> 25 copies, compression" >&2
s0=$EPOCHREALTIME; lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; echo "lbzip2 -9 x25 (one run): $(awk -v a=$s0 -v b=$EPOCHREALTIME 'BEGIN{print b-a}') s" | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --jsonl "$O/x25c.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fast "$p -o {out} $W/x25.tar" bz2 "$p -9 -o {out} $W/x25.tar"
$p -o "$W/x25.pcmp" "$W/x25.tar" || exit 1
echo "==> 25 copies, decompression" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fastd "$p -d -o {out} $W/x25.pcmp" \
  lmade "$p -d -o {out} $W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 1 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- lbzip2 "lbzip2 -d -n$n -c $W/x25.l.bz2 > {out}"
mkdir -p /tmp/traces
$p -d --trace /tmp/traces/x25-fastd.json --stats /tmp/traces/x25-fastd.stats.json -o /tmp/ab-out/t "$W/x25.pcmp"
$p -d --trace /tmp/traces/x25-lmade.json --stats /tmp/traces/x25-lmade.stats.json -o /tmp/ab-out/t "$W/x25.l.bz2"
$p -9 --trace /tmp/traces/x25-bz2c.json --stats /tmp/traces/x25-bz2c.stats.json -o /tmp/ab-out/t "$W/x25.tar"
rm -f /tmp/ab-out/t "$W/x25.pcmp" "$W/x25.l.bz2"; tar czf "$O/traces.tgz" -C /tmp traces
echo "==> the tarball" >&2
T=$W/l.tar; lbzip2 -9 -n $n -c $T > $W/l.l.bz2; $p -9 -o $W/l.bz2 $T; $p -o $W/l.pcmp $T
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --jsonl "$O/tar-c.jsonl" -- \
  lbzip2 "lbzip2 -9 -n$n -c $T > {out}" bz2 "$p -9 -o {out} $T" fast "$p -o {out} $T"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$T" --jsonl "$O/tar-d.jsonl" -- \
  cat "cat $T > {out}" lbzip2 "lbzip2 -d -n$n -c $W/l.l.bz2 > {out}" lmade "$p -d -o {out} $W/l.l.bz2" own "$p -d -o {out} $W/l.bz2" fastd "$p -d -o {out} $W/l.pcmp"
for f in book1 xml dickens; do
  echo "==> $f" >&2
  lbzip2 -9 -n $n -c $S/$f > $S/$f.l.bz2; $p -o $S/$f.pcmp $S/$f
  $p -9 -o $S/$f.bz2 $S/$f; cmp <(bzip2 -9 -c $S/$f) $S/$f.bz2 && echo "$f: parcomp -9 wrote bzip2 -9's bytes" | tee -a "$O/env.txt" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --jsonl "$O/small-c.jsonl" -- \
    $f.lbzip2 "lbzip2 -9 -n$n -c $S/$f > {out}" $f.bz2 "$p -9 -o {out} $S/$f" $f.fast "$p -o {out} $S/$f"
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --ref $S/$f --jsonl "$O/small-d.jsonl" -- \
    $f.lbzip2 "lbzip2 -d -n$n -c $S/$f.l.bz2 > {out}" $f.lmade "$p -d -o {out} $S/$f.l.bz2" $f.fastd "$p -d -o {out} $S/$f.pcmp"
done
echo "==> GPU tests (.bz2 and the engine)" >&2
timeout 150 parcomp-tests-gpu --gtest_filter='Bz2Gpu.*:EngineGpu.*:PipelineGpu.*' > "$O/gpu-tests.log" 2>&1; echo "gpu tests exit $?" | tee -a "$O/env.txt" >&2
tail -n 3 "$O/gpu-tests.log" >&2
tar czf "$O/jsonl.tgz" -C "$O" $(cd "$O" && ls *.jsonl) && rm -f "$O"/*.jsonl
echo done >&2
