#!/usr/bin/env bash
# Session 16, one GPU (asked for an H200) at 58b17bc (collect()'s pieces of 32 MiB; each GPU joins
# when its own context is ready): #18's H200-host rows in one call, outputs on /tmp (the host's
# disk), labels taking turns, every decompressed output compared: 25 copies of the tarball both ways
# (.bz2 -9, the parcomp format, lbzip2's .bz2) beside cat, 3 runs; the tarball, 7 runs; Calgary
# book1, Silesia xml and dickens, 11 runs; lbzip2 on every host thread beside each.
# The bundle without parcomp-bench and the GPU tests (64 MiB).
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-slim.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out; S=/dev/shm/small; mkdir -p $S
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; df -hT /dev/shm /tmp/ab-out; } > "$O/env.txt" 2>&1
xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; bzip2 -dc "$D/dickens.bz2" > $S/dickens
sha256sum "$W/l.tar" "$W/x25.tar" $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
p="parcomp -q -f"; n=$(nproc)
$p -o "$W/x25.pcmp" "$W/x25.tar" && $p -9 -o "$W/x25.bz2" "$W/x25.tar" && lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2" || exit 1
for f in "$W/x25.bz2" "$W/x25.l.bz2"; do parcomp -v -d -c "$f" 2>&1 >/dev/null | grep -E "ready|GPU\(s\)" | tee -a "$O/startup.txt" >&2; done
echo "==> 25 copies" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fastd "$p -d -o {out} $W/x25.pcmp" bz2d "$p -d -o {out} $W/x25.bz2" lmade "$p -d -o {out} $W/x25.l.bz2" 2>&1 | tail -4 | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --jsonl "$O/x25c.jsonl" -- \
  bz2c "$p -9 -o {out} $W/x25.tar" fastc "$p -o {out} $W/x25.tar" 2>&1 | tail -2 | tee -a "$O/env.txt" >&2
rm -f "$W/x25.pcmp" "$W/x25.bz2" "$W/x25.l.bz2"
echo "==> the tarball" >&2
T=$W/l.tar; lbzip2 -9 -n $n -c $T > $W/l.l.bz2; $p -9 -o $W/l.bz2 $T; $p -o $W/l.pcmp $T
cmp <(bzip2 -9 -c $T) $W/l.bz2 && echo "tarball: parcomp -9 wrote bzip2 -9's bytes" | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$T" --jsonl "$O/tar-d.jsonl" -- \
  cat "cat $T > {out}" lbzip2 "lbzip2 -d -n$n -c $W/l.l.bz2 > {out}" lmade "$p -d -o {out} $W/l.l.bz2" \
  own "$p -d -o {out} $W/l.bz2" pcmp "$p -d -o {out} $W/l.pcmp" 2>&1 | tail -5 | tee -a "$O/env.txt" >&2
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --jsonl "$O/tar-c.jsonl" -- \
  lbzip2 "lbzip2 -9 -n$n -c $T > {out}" bz2 "$p -9 -o {out} $T" pcmp "$p -o {out} $T" 2>&1 | tail -3 | tee -a "$O/env.txt" >&2
for f in book1 xml dickens; do
  echo "==> $f" >&2
  lbzip2 -9 -n $n -c $S/$f > $S/$f.l.bz2; $p -9 -o $S/$f.bz2 $S/$f; $p -o $S/$f.pcmp $S/$f
  cmp <(bzip2 -9 -c $S/$f) $S/$f.bz2 && echo "$f: parcomp -9 wrote bzip2 -9's bytes" | tee -a "$O/env.txt" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --jsonl "$O/small-c.jsonl" -- \
    $f.lbzip2 "lbzip2 -9 -n$n -c $S/$f > {out}" $f.bz2 "$p -9 -o {out} $S/$f" $f.pcmp "$p -o {out} $S/$f" 2>&1 | tail -3 | tee -a "$O/env.txt" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --ref $S/$f --jsonl "$O/small-d.jsonl" -- \
    $f.lbzip2 "lbzip2 -d -n$n -c $S/$f.l.bz2 > {out}" $f.lmade "$p -d -o {out} $S/$f.l.bz2" $f.own "$p -d -o {out} $S/$f.bz2" $f.pcmp "$p -d -o {out} $S/$f.pcmp" 2>&1 | tail -4 | tee -a "$O/env.txt" >&2
done
echo done >&2
