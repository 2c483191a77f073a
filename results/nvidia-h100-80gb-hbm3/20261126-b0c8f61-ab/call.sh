#!/usr/bin/env bash
# One call: (1) 25-copy decompression, new (bundle) against bc67a4e, output on /tmp and on /dev/shm;
# (2) ruler-keep against main's CPU .bz2 reader at 1/8/16 threads beside lbzip2 -d.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/ab-bundle
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/ab-bundle || exit 2
B=/tmp/ab-bundle/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W"
xz -dc "$D/parcomp-bc67a4e.xz" > "$B/parcomp-old" && chmod +x "$B/parcomp-old"
xz -dc "$D/parcomp-keep.xz" > "$B/parcomp-keep" && chmod +x "$B/parcomp-keep"
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; parcomp-old --version | tail -1; parcomp-keep --version | tail -1
  mkdir -p /tmp/ab-out; df -hT /dev/shm /tmp/ab-out; mount | grep -E ' /tmp | / ' ; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
p="parcomp -q -f"; o="parcomp-old -q -f"
$p -o "$W/x25.pcmp" "$W/x25.tar" && $p -9 -o "$W/x25.bz2" "$W/x25.tar" || exit 1
for fs in tmp shm; do
  [ $fs = tmp ] && work=/tmp/ab-out || work=/dev/shm/ab-out
  echo "==> decompression, output in $work" >&2
  bash "$D/wall-ab.sh" --work "$work" --runs 3 --ref "$W/x25.tar" --jsonl "$O/x25d-$fs.jsonl" -- \
    cat "cat $W/x25.tar > {out}" fastd.new "$p -d -o {out} $W/x25.pcmp" fastd.old "$o -d -o {out} $W/x25.pcmp" \
    fastd.new.write "$p -d --output-io write -o {out} $W/x25.pcmp" bz2d.new "$p -d -o {out} $W/x25.bz2" bz2d.old "$o -d -o {out} $W/x25.bz2"
  rm -rf "$work"
done
echo "==> ruler-keep" >&2
T=$W/l.tar; lbzip2 -9 -n "$(nproc)" -c "$T" > /dev/shm/t.bz2
a=(); for n in 1 8 16; do a+=(old$n "parcomp -d -f -q --threads $n -o {out} /dev/shm/t.bz2" keep$n "parcomp-keep -d -f -q --threads $n -o {out} /dev/shm/t.bz2" l$n "lbzip2 -d -n$n -c /dev/shm/t.bz2 > {out}"); done
bash "$D/wall-ab.sh" --runs 5 --ref "$T" --jsonl "$O/keep.jsonl" -- "${a[@]}"
echo done >&2
