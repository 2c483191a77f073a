#!/usr/bin/env bash
# Many compressions at once on one host (tool.load, ours): N processes, each on a different file
# (the input twice and a line that tags it), compress all at once, then decompress all at once
# into cmp against the file; beside an idle GPU, or one whose memory another process holds
# (parcomp-gpu-hold) but LEAVE. One JSON line per phase on standard output: jobs, jobs_ok (exit 0
# and, for decompression, the file's bytes back), wall_s of the whole batch, bytes_per_second (all
# jobs' uncompressed bytes over that wall), the largest peak host RSS and device bytes of one job.
#
#   scripts/load-test.sh --program parcomp.bz2|parcomp.bz2.gpu|parcomp.fast|lbzip2 --jobs N --input FILE
#                        [--gpu-busy LEAVE] [--dir DIR] [--tag NAME]
set -uo pipefail
program= jobs= input= busy= dir=/dev/shm/parcomp-load tag=
while [ $# -gt 0 ]; do
  case "$1" in
    --program) program=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --input) input=$2; shift 2 ;;
    --gpu-busy) busy=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    *) echo "load-test.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
[ -n "$program" ] && [ -n "$jobs" ] && [ -f "$input" ] || { sed -n '2,11p' "$0" >&2; exit 1; }
case "$program" in
  parcomp.bz2) zip=(parcomp -9 -c); unzip=(parcomp -dc); stats=1 ;;
  parcomp.bz2.gpu) zip=(parcomp --gpu -9 -c); unzip=(parcomp --gpu -dc); stats=1 ;;
  parcomp.fast) zip=(parcomp --format parcomp -c); unzip=(parcomp -dc); stats=1 ;;
  lbzip2) zip=(lbzip2 -9 -c); unzip=(lbzip2 -dc); stats=0 ;;
  *) echo "load-test.sh: --program is parcomp.bz2, parcomp.bz2.gpu, parcomp.fast or lbzip2" >&2; exit 1 ;;
esac
mkdir -p "$dir"
for ((k = 0; k < jobs; k++)); do  # the inputs, made once and kept for the next runs
  [ -f "$dir/in.$k" ] || { cat "$input" "$input"; echo "parcomp load test, file $k"; } > "$dir/in.$k"
done
holder=
if [ -n "$busy" ]; then
  parcomp-gpu-hold --leave "$busy" > "$dir/hold.txt" &
  holder=$!
  for _ in $(seq 200); do [ -s "$dir/hold.txt" ] && break; sleep 0.05; done
  echo "gpu-busy: $(cat "$dir/hold.txt")" >&2
fi
now() { date +%s.%N; }
phase() {  # phase NAME: runs the N jobs at once, prints its JSON line
  local name=$1 t0 t1 k
  rm -f "$dir"/rc.* "$dir"/rss.* "$dir"/stats.*
  t0=$(now)
  for ((k = 0; k < jobs; k++)); do
    (
      s=(); [ "$stats" = 1 ] && s=(--stats "$dir/stats.$k")
      if [ "$name" = compress ]; then
        /usr/bin/time -f %M -o "$dir/rss.$k" "${zip[@]}" "${s[@]}" "$dir/in.$k" > "$dir/z.$k"
        echo $? > "$dir/rc.$k"
      else
        /usr/bin/time -f %M -o "$dir/rss.$k" "${unzip[@]}" "${s[@]}" "$dir/z.$k" | cmp -s - "$dir/in.$k"
        st=("${PIPESTATUS[@]}"); echo $((st[0] + st[1])) > "$dir/rc.$k"
      fi
    ) 2> "$dir/err.$k" &
  done
  wait $(jobs -p | grep -v "^${holder:-none}$") 2>/dev/null
  t1=$(now)
  python3 - "$dir" "$jobs" "$name" "$t0" "$t1" "$program" "${tag:-}" "${busy:-}" <<'PY'
import json, os, sys
d, n, name, t0, t1, program, tag, busy = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6], sys.argv[7], sys.argv[8]
def read(path, conv, default):
    try:
        with open(path) as f:
            return conv(f.read().strip().splitlines()[-1])
    except Exception:
        return default
ok = sum(1 for k in range(n) if read(f"{d}/rc.{k}", int, 1) == 0)
size = sum(os.path.getsize(f"{d}/in.{k}") for k in range(n))
rss = max(read(f"{d}/rss.{k}", int, 0) for k in range(n)) * 1024
dev = 0
for k in range(n):
    try:
        with open(f"{d}/stats.{k}") as f:
            dev = max(dev, int(json.load(f).get("peak_device_bytes", 0)))
    except Exception:
        pass
errors = [open(f"{d}/err.{k}").read().strip() for k in range(n) if read(f"{d}/rc.{k}", int, 1) != 0]
wall = t1 - t0
print(json.dumps({"program": program, "jobs": n, "gpu_busy_leave": busy or None, "phase": name, "jobs_ok": ok, "wall_s": round(wall, 3),
                  "bytes_per_second": round(size / wall), "peak_host_rss_bytes": rss, "peak_device_bytes": dev, "tag": tag or None,
                  "first_error": errors[0][-300:] if errors else None}))
PY
}
phase compress
phase decompress
[ -n "$holder" ] && kill "$holder" 2>/dev/null
rm -f "$dir"/z.* "$dir"/rc.* "$dir"/rss.* "$dir"/stats.* "$dir"/err.*
