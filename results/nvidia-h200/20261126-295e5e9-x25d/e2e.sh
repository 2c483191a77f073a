#!/usr/bin/env bash
# Session 15, on an H200: this tree (ceed482 + 1024-symbol chunks) end to end against ceed482:
# session's start (ba11764), end to end: 25 copies of the tarball as lbzip2 -9 writes them
# decompressed (5 runs each, labels in turn, beside cat, the parcomp format and lbzip2 -d), the
# tarball's .bz2 (lbzip2's; 7 runs each, beside lbzip2 -d); outputs on /tmp (the host's disk), every
# output compared; a trace of the new decoder on 25 copies.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-ceed482.xz" > "$B/parcomp-ceed482" && chmod +x "$B/parcomp-ceed482"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; parcomp-ceed482 --version | tail -1; lbzip2 --version 2>&1 | head -1; df -hT /tmp/ab-out; } > "$O/env.txt" 2>&1
xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"
sha256sum "$W/l.tar" "$W/x25.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); p="parcomp -q -f"; q="parcomp-ceed482 -q -f"
$p -o "$W/x25.pcmp" "$W/x25.tar" || exit 1
lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; lbzip2 -9 -n $n -c "$W/l.tar" > "$W/l.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" old "$q -d -o {out} $W/x25.l.bz2" new "$p -d -o {out} $W/x25.l.bz2" fastd "$p -d -o {out} $W/x25.pcmp"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 1 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- lbzip2 "lbzip2 -d -n$n -c $W/x25.l.bz2 > {out}"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$W/l.tar" --jsonl "$O/x1d.jsonl" -- \
  old "$q -d -o {out} $W/l.l.bz2" new "$p -d -o {out} $W/l.l.bz2" lbzip2 "lbzip2 -d -n$n -c $W/l.l.bz2 > {out}"
$p -d --trace /tmp/x25-lmade.json -o /tmp/ab-out/t "$W/x25.l.bz2"; gzip -9 -c /tmp/x25-lmade.json > "$O/trace-x25-lmade.json.gz"
echo done >&2
