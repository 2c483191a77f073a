#!/usr/bin/env bash
# Session 14, last measurement at HEAD (the walk's three steps in): 25 copies decompressed, the
# parcomp format and lbzip2 -9's .bz2 (5 runs each, labels in turn) beside cat and lbzip2 -d, outputs
# on /tmp (the host's disk), every output compared; a trace of each.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; df -hT /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); p="parcomp -q -f"
$p -o "$W/x25.pcmp" "$W/x25.tar" || exit 1
lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" fastd "$p -d -o {out} $W/x25.pcmp" lmade "$p -d -o {out} $W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 1 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- lbzip2 "lbzip2 -d -n$n -c $W/x25.l.bz2 > {out}"
$p -d --trace /tmp/x25-lmade.json -o /tmp/ab-out/t "$W/x25.l.bz2"; gzip -9 -c /tmp/x25-lmade.json > "$O/trace-x25-lmade.json.gz"
echo done >&2
