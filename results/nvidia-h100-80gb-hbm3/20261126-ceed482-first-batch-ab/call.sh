#!/usr/bin/env bash
# Session 15: the GPU's first .bz2 decompression batch of 32 blocks (this tree) against 256
# (ceed482, the decoder of ea823e6): 25 and 5 copies of the tarball as lbzip2 -9 writes them, 7 runs
# each, labels in turn, beside cat; outputs on /tmp (the host's disk), every output compared; a
# trace of each on 25 copies.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-ceed482.xz" > "$B/parcomp-ceed482" && chmod +x "$B/parcomp-ceed482"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; parcomp-ceed482 --version | tail -1; lbzip2 --version 2>&1 | head -1; df -hT /tmp/ab-out; } > "$O/env.txt" 2>&1
xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar" && for ((k = 0; k < 5; k++)); do cat "$W/l.tar"; done > "$W/x5.tar"
sha256sum "$W/l.tar" "$W/x5.tar" "$W/x25.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); p="parcomp -q -f"; q="parcomp-ceed482 -q -f"
lbzip2 -9 -n $n -c "$W/x25.tar" > "$W/x25.l.bz2"; lbzip2 -9 -n $n -c "$W/x5.tar" > "$W/x5.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" old "$q -d -o {out} $W/x25.l.bz2" new "$p -d -o {out} $W/x25.l.bz2"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 7 --ref "$W/x5.tar" --jsonl "$O/x5d.jsonl" -- \
  cat "cat $W/x5.tar > {out}" old "$q -d -o {out} $W/x5.l.bz2" new "$p -d -o {out} $W/x5.l.bz2"
$p -d --trace /tmp/x25-new.json -o /tmp/ab-out/t "$W/x25.l.bz2"; $q -d --trace /tmp/x25-old.json -o /tmp/ab-out/t "$W/x25.l.bz2"
(cd /tmp && tar czf "$O/traces.tgz" x25-new.json x25-old.json)
echo done >&2
