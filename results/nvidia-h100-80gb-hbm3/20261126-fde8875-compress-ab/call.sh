#!/usr/bin/env bash
# Session 14, seventh call: compression at HEAD against 052a1da (the session's start) on one host,
# labels in turn: the tarball to .bz2 and to the parcomp format (9 runs), 25 copies (3 runs),
# beside lbzip2 -9; outputs on /tmp; every .bz2 checked with bzip2 -t, every output's size kept.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
xz -dc "$D/parcomp-052a1da.xz" > "$B/parcomp-old" && chmod +x "$B/parcomp-old"
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"
  parcomp --version | tail -1; parcomp-old --version | tail -1; lbzip2 --version 2>&1 | head -1; df -hT /tmp/ab-out; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc); T=$W/l.tar
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 9 --jsonl "$O/tar-c.jsonl" -- \
  lbzip2 "lbzip2 -9 -n$n -c $T > {out}" bz2.old "parcomp-old -q -f -9 -o {out} $T" bz2.new "parcomp -q -f -9 -o {out} $T" \
  fast.old "parcomp-old -q -f -o {out} $T" fast.new "parcomp -q -f -o {out} $T"
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 3 --jsonl "$O/x25c.jsonl" -- \
  bz2.old "parcomp-old -q -f -9 -o {out} $W/x25.tar" bz2.new "parcomp -q -f -9 -o {out} $W/x25.tar" \
  fast.old "parcomp-old -q -f -o {out} $W/x25.tar" fast.new "parcomp -q -f -o {out} $W/x25.tar"
parcomp -q -f -9 -o /tmp/ab-out/t.bz2 $T && bzip2 -t /tmp/ab-out/t.bz2 && echo "HEAD's -9 of the tarball: bzip2 -t ok" | tee -a "$O/env.txt" >&2
for v in parcomp parcomp-old; do $v -9 --stats "$O/stats-$v.json" --trace /tmp/tr-$v.json -o /tmp/ab-out/t.bz2 -f $T; done
gzip -9 -c /tmp/tr-parcomp.json > "$O/trace-tar-bz2c-new.json.gz"; gzip -9 -c /tmp/tr-parcomp-old.json > "$O/trace-tar-bz2c-old.json.gz"
echo done >&2
