#!/usr/bin/env bash
# One call at HEAD's parcomp (parcomp-head.xz) with b0c8f61's bundle beside it: output on /tmp (the
# host's disk, where the suite's tool.e2e writes): 25 copies decompressed (HEAD: write() calls on a
# disk; b0c8f61: mapped windows), the tarball's .bz2 decompression against lbzip2 -d, and the small
# files both ways against lbzip2.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/ab-bundle
D=$(cd "$(dirname "$0")" && pwd)
[ -x /tmp/ab-bundle/bundle/parcomp ] || tar xJf "$D/bundle-slim.tar.xz" -C /tmp/ab-bundle || exit 2
B=/tmp/ab-bundle/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-head.xz" > "$B/parcomp-head" && chmod +x "$B/parcomp-head"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out; S=/dev/shm/small; mkdir -p $S
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; parcomp-head --version | tail -1; lbzip2 --version 2>&1 | head -1
  df -hT /dev/shm /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; xz -dc "$D/dickens.xz" > $S/dickens
sha256sum "$W/l.tar" $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
h="parcomp-head -q -f"; o="parcomp -q -f"; n=$(nproc)
$h -o "$W/x25.pcmp" "$W/x25.tar" && $h -9 -o "$W/x25.bz2" "$W/x25.tar" || exit 1
echo "==> 25 copies, output on /tmp" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d-tmp.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fastd.head "$h -d -o {out} $W/x25.pcmp" fastd.b0c8f61 "$o -d -o {out} $W/x25.pcmp" bz2d.head "$h -d -o {out} $W/x25.bz2"
rm -f "$W/x25.pcmp" "$W/x25.bz2"
echo "==> the tarball, output on /tmp" >&2
T=$W/l.tar; lbzip2 -9 -n $n -c $T > $W/l.l.bz2; $h -9 -o $W/l.bz2 $T; $h -o $W/l.pcmp $T
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$T" --jsonl "$O/tar-d.jsonl" -- \
  cat "cat $T > {out}" lbzip2 "lbzip2 -d -n$n -c $W/l.l.bz2 > {out}" lmade.head "$h -d -o {out} $W/l.l.bz2" lmade.b0c8f61 "$o -d -o {out} $W/l.l.bz2" \
  own.head "$h -d -o {out} $W/l.bz2" pcmp.head "$h -d -o {out} $W/l.pcmp"
for f in book1 xml dickens; do
  echo "==> $f" >&2
  lbzip2 -9 -n $n -c $S/$f > $S/$f.l.bz2; $h -9 -o $S/$f.bz2 $S/$f; $h -o $S/$f.pcmp $S/$f
  cmp <(bzip2 -9 -c $S/$f) $S/$f.bz2 && echo "$f: parcomp -9 wrote bzip2 -9's bytes" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --jsonl "$O/small-c.jsonl" -- \
    $f.lbzip2 "lbzip2 -9 -n$n -c $S/$f > {out}" $f.bz2.head "$h -9 -o {out} $S/$f" $f.pcmp.head "$h -o {out} $S/$f"
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --ref $S/$f --jsonl "$O/small-d.jsonl" -- \
    $f.lbzip2 "lbzip2 -d -n$n -c $S/$f.l.bz2 > {out}" $f.lmade.head "$h -d -o {out} $S/$f.l.bz2" $f.own.head "$h -d -o {out} $S/$f.bz2" $f.pcmp.head "$h -d -o {out} $S/$f.pcmp"
done
echo done >&2
