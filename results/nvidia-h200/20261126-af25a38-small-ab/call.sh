#!/usr/bin/env bash
# Session 16, one GPU (asked for an H200): small files' .bz2 compression, af25a38 ("new": the
# reader's reads and cut on every host thread until each CPU worker has a block; parcomp-new.xz)
# against 58b17bc ("old", the bundle's), lbzip2 beside, 15 runs each, labels in turn; new's -9 output
# compared with bzip2 -9's; one trace each of new on xml and dickens.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-slim.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=/tmp/nb/bundle  # parcomp-new: built here, not patched to find the bundle's libraries
xz -dc "$D/parcomp-new.xz" > "$B/parcomp-new" && chmod +x "$B/parcomp-new"
S=/dev/shm/small; mkdir -p $S /tmp/ab-out
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores $(nproc)"; uname -r
  parcomp --version | tail -1; parcomp-new --version | tail -1; lbzip2 --version 2>&1 | head -1; } > "$O/env.txt" 2>&1
xz -dc "$D/book1.xz" > $S/book1; bzip2 -dc "$D/xml.bz2" > $S/xml; bzip2 -dc "$D/dickens.bz2" > $S/dickens
sha256sum $S/* >> "$O/env.txt"; cat "$O/env.txt" >&2
n=$(nproc)
for f in book1 xml dickens; do
  cmp <(bzip2 -9 -c $S/$f) <(parcomp-new -9 -c $S/$f) && echo "$f: new -9 wrote bzip2 -9's bytes" | tee -a "$O/env.txt" >&2
  bash "$D/wall-ab.sh" --work /tmp/ab-out --runs 15 --jsonl "$O/small-c.jsonl" -- \
    $f.lbzip2 "lbzip2 -9 -n$n -c $S/$f > {out}" $f.old "parcomp -q -f -9 -o {out} $S/$f" $f.new "parcomp-new -q -f -9 -o {out} $S/$f" 2>&1 | tail -3 | tee -a "$O/env.txt" >&2
done
for f in xml dickens; do parcomp-new -q -f -9 --trace "$O/trace-$f.json" -o /tmp/ab-out/t $S/$f; gzip "$O/trace-$f.json"; done
echo done >&2
