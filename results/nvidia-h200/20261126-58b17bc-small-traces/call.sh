#!/usr/bin/env bash
# Session 16, one GPU (asked for an H200), 58b17bc's bundle: where a small file's compression time
# goes on the host, beside lbzip2: timelines (--trace) of parcomp -9 on Calgary book1, Silesia xml
# and dickens and on the Linux tarball (5 runs each, the median's trace kept), wall times of the
# program's fixed costs (--version, a 1-byte file) against lbzip2's, 11 runs each, labels in turn.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-slim.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH
S=/dev/shm/small; mkdir -p $S /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1
  echo "cores $(nproc)"; uname -r; lscpu | grep -E "Model name|MHz" ; parcomp --version | tail -1; lbzip2 --version 2>&1 | head -1; } > "$O/env.txt" 2>&1
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; bzip2 -dc "$D/dickens.bz2" > $S/dickens; xz -dc "$D/linux-2.6.11.1.tar.xz" > $S/tar
printf x > $S/one
sha256sum $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc)
bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 11 --jsonl "$O/fixed.jsonl" -- \
  version.parcomp "parcomp --version > {out}" version.lbzip2 "lbzip2 --version > {out} 2>&1" \
  one.parcomp "parcomp -9 -c $S/one > {out}" one.lbzip2 "lbzip2 -9 -n$n -c $S/one > {out}" 2>&1 | tail -4 | tee -a "$O/env.txt" >&2
for f in book1 xml dickens tar; do
  for r in 1 2 3 4 5; do
    s=$EPOCHREALTIME; parcomp -9 -f --trace /tmp/t-$f-$r.json -o /tmp/ab-out/o $S/$f; e=$EPOCHREALTIME
    echo "$f run $r parcomp -9 --trace $(awk -v a=$s -v b=$e 'BEGIN{printf "%.4f", b-a}') s" | tee -a "$O/traces.txt" >&2
    s=$EPOCHREALTIME; lbzip2 -9 -n$n -c $S/$f > /tmp/ab-out/l; e=$EPOCHREALTIME
    echo "$f run $r lbzip2 -9 $(awk -v a=$s -v b=$e 'BEGIN{printf "%.4f", b-a}') s" | tee -a "$O/traces.txt" >&2
  done
  tar czf "$O/traces-$f.tgz" -C /tmp $(cd /tmp && ls t-$f-*.json)
done
echo done >&2
