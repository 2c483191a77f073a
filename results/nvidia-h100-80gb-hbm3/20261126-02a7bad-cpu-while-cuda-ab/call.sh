#!/usr/bin/env bash
# Session 15: .bz2 on the GPU by default with CPU workers on every thread while CUDA starts, which
# step aside once the GPU takes its first batch (this tree), against the GPU alone (ceed482): the
# tarball and 25 copies compressed (-9) and decompressed (lbzip2 -9's files), labels in turn,
# beside cat and lbzip2; outputs on /tmp (the host's disk), every output compared; traces.
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
lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; lbzip2 -9 -n $n -c "$W/l.tar" > "$W/l.l.bz2"; bzip2 -9 -c "$W/l.tar" > "$W/l.ref.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 9 --ref "$W/l.ref.bz2" --jsonl "$O/x1c.jsonl" -- \
  old "$q -9 -c $W/l.tar > {out}" new "$p -9 -c $W/l.tar > {out}"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --jsonl "$O/x1c.jsonl" -- lbzip2 "lbzip2 -9 -n$n -c $W/l.tar > {out}"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" old "$q -d -o {out} $W/x25.l.bz2" new "$p -d -o {out} $W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --jsonl "$O/x25c.jsonl" -- \
  old "$q -9 -c $W/x25.tar > {out}" new "$p -9 -c $W/x25.tar > {out}"
$p -9 -c "$W/x25.tar" | cmp - <($q -9 -c "$W/x25.tar") && echo "x25 -9: the same bytes" | tee -a "$O/env.txt" >&2
$p -9 --trace /tmp/l-new.json -c "$W/l.tar" > /dev/null; $p -d --trace /tmp/x25-new.json -o /tmp/ab-out/t "$W/x25.l.bz2"
(cd /tmp && tar czf "$O/traces.tgz" l-new.json x25-new.json)
echo done >&2
