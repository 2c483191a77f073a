#!/usr/bin/env bash
# Session 15: the five mutants of the last check again (there they could not find the bundle's
# libraries: exit 127), now with the bundle's folder on the library path, all at once: their .bz2
# GPU tests must fail; HEAD's binary the same way must pass.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb /tmp/mut
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-core.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; parcomp --version | tail -1; } > "$O/env.txt" 2>&1
run() { m=$1; shift; timeout 200 "$@" --gtest_filter='Bz2Gpu.*' > "/tmp/mut/$m.log" 2>&1; rc=$?
  echo "$m: exit $rc; $(grep -c '^\[  FAILED  \] Bz2Gpu' "/tmp/mut/$m.log") failed: $(grep '^\[  FAILED  \] Bz2Gpu' "/tmp/mut/$m.log" | sed 's/.*\] //; s/ (.*//' | sort -u | tr '\n' ' ')" >> "$O/mutants.txt"; }
for m in link-order rank-round emit-tail kept-last-word word-ahead; do
  xz -dc "$D/tests-$m.xz" > "/tmp/mut/t-$m" && chmod +x "/tmp/mut/t-$m"
  run "$m" "/tmp/mut/t-$m" &
done
run head parcomp-tests-gpu &
wait
cat "$O/mutants.txt" >&2
(cd /tmp/mut && tar czf "$O/mutant-logs.tgz" *.log)
echo done >&2
