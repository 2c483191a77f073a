#!/usr/bin/env bash
# Session 14, fifth call: is the .bz2 writer slowed by glibc giving freed block buffers back to the
# kernel? 25 copies, our -9 file, decompressed to /tmp with glibc's defaults and with trimming off
# and the mmap threshold at its maximum (GLIBC_TUNABLES), 5 runs each in turn, beside cat; a trace each.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
W=/dev/shm/e2e-ab; mkdir -p "$W" /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; parcomp --version | tail -1; ldd --version | head -1; } > "$O/env.txt" 2>&1
[ -s "$W/x25.tar" ] || { xz -dc "$D/linux-2.6.11.1.tar.xz" > "$W/l.tar" && for ((k = 0; k < 25; k++)); do cat "$W/l.tar"; done > "$W/x25.tar"; }
sha256sum "$W/l.tar" >> "$O/env.txt"; cat "$O/env.txt" >&2
p="parcomp -q -f"; T='GLIBC_TUNABLES=glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=33554432'
$p -9 -o "$W/x25.bz2" "$W/x25.tar" || exit 1
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 5 --ref "$W/x25.tar" --jsonl "$O/x25d.jsonl" -- \
  cat "cat $W/x25.tar > {out}" own "$p -d -o {out} $W/x25.bz2" own.notrim "env $T $p -d -o {out} $W/x25.bz2"
mkdir -p /tmp/traces
$p -d --trace /tmp/traces/own.json -o /tmp/ab-out/t "$W/x25.bz2"
env $T $p -d --trace /tmp/traces/own-notrim.json -o /tmp/ab-out/t "$W/x25.bz2"
tar czf "$O/traces.tgz" -C /tmp traces
echo done >&2
