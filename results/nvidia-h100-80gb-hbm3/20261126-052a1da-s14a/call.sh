#!/usr/bin/env bash
# Session 14, first H200 call, at HEAD's parcomp (parcomp-head.xz) with b0c8f61's bundle (lbzip2,
# libraries) beside it; outputs on /tmp (the host's disk, where the suite's tool.e2e writes):
# 1. one thread writing 5.2 GB: chunk sizes, with and without posix_fallocate (writebench.py);
# 2. 25 copies: cat, the parcomp format -d, lbzip2 -9's .bz2 -d by default (GPU alone) and with
#    2 / 4 / 8 CPU workers beside the GPU (--gpu --threads N), lbzip2 -d; one traced run of each;
# 3. the small files both ways against lbzip2 (the parallel sort's probe, f715fa6, first on a host).
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/ab-bundle
D=$(cd "$(dirname "$0")" && pwd)
[ -x /tmp/ab-bundle/bundle/parcomp ] || tar xJf "$D/bundle-slim.tar.xz" -C /tmp/ab-bundle || exit 2
B=/tmp/ab-bundle/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-head.xz" > "$B/parcomp-head" && chmod +x "$B/parcomp-head"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out; S=/dev/shm/small; mkdir -p $S
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp-head --version | tail -1; lbzip2 --version 2>&1 | head -1
  df -hT /dev/shm /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; xz -dc "$D/dickens.xz" > $S/dickens
sha256sum "$W/l.tar" $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
h="parcomp-head -q -f"; n=$(nproc)
echo "==> write bench" >&2
python3 "$D/writebench.py" /tmp/ab-out/wb 5206272000 2 > "$O/writebench.jsonl"; cat "$O/writebench.jsonl" >&2
echo "==> 25 copies" >&2
$h -o "$W/x25.pcmp" "$W/x25.tar" || exit 1
s0=$EPOCHREALTIME; lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; echo "lbzip2 -9 x25: $(awk -v a=$s0 -v b=$EPOCHREALTIME 'BEGIN{print b-a}') s" | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fastd "$h -d -o {out} $W/x25.pcmp" lmade "$h -d -o {out} $W/x25.l.bz2" \
  lmade.t2 "$h -d --gpu --threads 2 -o {out} $W/x25.l.bz2" lmade.t4 "$h -d --gpu --threads 4 -o {out} $W/x25.l.bz2" \
  lmade.t8 "$h -d --gpu --threads 8 -o {out} $W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 1 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  lbzip2 "lbzip2 -d -n$n -c $W/x25.l.bz2 > {out}"
mkdir -p "$O/traces"
$h -d --trace "$O/traces/x25-fastd.json" --stats "$O/traces/x25-fastd.stats.json" -o /tmp/ab-out/t "$W/x25.pcmp"
$h -d --trace "$O/traces/x25-lmade.json" --stats "$O/traces/x25-lmade.stats.json" -o /tmp/ab-out/t "$W/x25.l.bz2"
$h -d --gpu --threads 4 --trace "$O/traces/x25-lmade-t4.json" --stats "$O/traces/x25-lmade-t4.stats.json" -o /tmp/ab-out/t "$W/x25.l.bz2"
rm -f /tmp/ab-out/t "$W/x25.pcmp"; gzip -9 "$O"/traces/*.json
for f in book1 xml dickens; do
  echo "==> $f" >&2
  lbzip2 -9 -n $n -c $S/$f > $S/$f.l.bz2; $h -o $S/$f.pcmp $S/$f
  $h -9 -o $S/$f.bz2 $S/$f; cmp <(bzip2 -9 -c $S/$f) $S/$f.bz2 && echo "$f: parcomp -9 wrote bzip2 -9's bytes" | tee -a "$O/env.txt" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --jsonl "$O/small-c.jsonl" -- \
    $f.lbzip2 "lbzip2 -9 -n$n -c $S/$f > {out}" $f.bz2 "$h -9 -o {out} $S/$f" $f.pcmp "$h -o {out} $S/$f"
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --ref $S/$f --jsonl "$O/small-d.jsonl" -- \
    $f.lbzip2 "lbzip2 -d -n$n -c $S/$f.l.bz2 > {out}" $f.lmade "$h -d -o {out} $S/$f.l.bz2" $f.pcmp "$h -d -o {out} $S/$f.pcmp"
done
echo done >&2
