#!/usr/bin/env bash
# Session 16, one GPU (asked for an H200), af25a38's parcomp: where a GPU run's time outside the
# engine goes. The tarball to .bz2 and back, and book1 with --gpu, 3 runs each: the process's wall
# time (bash's clock), the engine's seconds (--stats) and, where strace is there, the time of
# exit_group against the process's end.
set -uo pipefail
O=${OUT:-/tmp/out}; mkdir -p "$O" /tmp/nb
D=$(cd "$(dirname "$0")" && pwd)
tar xJf "$D/bundle-slim.tar.xz" -C /tmp/nb || exit 2
B=/tmp/nb/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=/tmp/nb/bundle
xz -dc "$D/parcomp-new.xz" > "$B/parcomp-new" && chmod +x "$B/parcomp-new"
S=/dev/shm/s; mkdir -p $S
xz -dc "$D/linux-2.6.11.1.tar.xz" > $S/tar; xz -dc "$D/book1.xz" > $S/book1
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,persistence_mode --format=csv,noheader; parcomp-new --version | tail -1; which strace perf ltrace; } > "$O/env.txt" 2>&1
cat "$O/env.txt" >&2
parcomp-new -9 -f -o $S/tar.bz2 $S/tar
run() { label=$1; shift
  s=$EPOCHREALTIME; "$@" --stats /tmp/st.json 2>/dev/null; e=$EPOCHREALTIME
  echo "$label wall $(awk -v a=$s -v b=$e 'BEGIN{printf "%.4f", b-a}') engine $(python3 -c 'import json;d=json.load(open("/tmp/st.json"));print("%.4f first_gpu %.4f peak_dev %.2f GB" % (d["seconds"], d["first_gpu_ready_s"], d["peak_device_bytes"]/1e9))')" | tee -a "$O/times.txt" >&2
}
for r in 1 2 3; do
  run tar-9 parcomp-new -9 -f -o /tmp/o1 $S/tar
  run tar-d parcomp-new -d -f -o /tmp/o2 $S/tar.bz2
  run book1-gpu parcomp-new --gpu -9 -f -o /tmp/o3 $S/book1
  run tar-9-cpu parcomp-new --cpu -9 -f -o /tmp/o4 $S/tar
done
if command -v strace > /dev/null; then
  for r in 1 2; do
    s=$EPOCHREALTIME; strace -f -tt -e trace=exit_group,munmap,close -o /tmp/st-$r.txt parcomp-new -9 -f -o /tmp/o1 $S/tar; e=$EPOCHREALTIME
    echo "strace run $r: wall $(awk -v a=$s -v b=$e 'BEGIN{printf "%.4f", b-a}') start $(date -d @${s%.*} +%T).${s#*.} end $(date -d @${e%.*} +%T).${e#*.}" | tee -a "$O/times.txt" >&2
    grep exit_group /tmp/st-$r.txt | tail -2 | tee -a "$O/times.txt" >&2
  done
fi
echo done >&2
