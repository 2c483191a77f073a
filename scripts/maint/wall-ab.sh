#!/usr/bin/env bash
# Same-host A/B wall times: each labelled command runs RUNS times, the labels taking turns (run 1 of
# every label, then run 2, ...), so that a host's drift spreads over all of them. The rounds' orders
# are a Williams design: over N rounds (2N for an odd number N of labels) each label follows every
# other one equally often within a round, since a run's time can depend on the run before it
# (docs/benchmarking.md); each JSON line names the label run before it ("after"). Each run is one
# process timed by /usr/bin/time (wall seconds, peak RSS), its output file {out} compared with
# --ref (when given) and removed. One JSON line a run into --jsonl; the median per label on stderr.
#
#   wall-ab.sh [--runs N] [--ref FILE] [--jsonl FILE] [--work DIR] -- LABEL 'COMMAND' [LABEL 'COMMAND' ...]
#
# COMMAND is run by bash; {out} in it becomes the run's output file (under --work, default
# /dev/shm/parcomp-ab). Example, the same file decompressed with two settings:
#   wall-ab.sh --runs 3 --ref x25.tar -- write 'parcomp -d -f --output-io write -o {out} x25.pcmp' \
#                                        auto  'parcomp -d -f -o {out} x25.pcmp'
set -uo pipefail
runs=3 ref="" jsonl=/dev/null work=/dev/shm/parcomp-ab
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --ref) ref=$2; shift 2 ;;
    --jsonl) jsonl=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "wall-ab: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { sed -n '2,14p' "$0"; exit 2; }
labels=() commands=()
while [ $# -gt 0 ]; do labels+=("$1"); commands+=("$2"); shift 2; done
mkdir -p "$work"
failed=0
declare -A times
n=${#labels[@]}
# Round r's order: row q = (r - 1) mod N (mod 2N for an odd N) of the design, 0, 1, N-1, 2, N-2, ...
# shifted by q mod N, and backwards where q >= N.
round_order() {
  local q=$(( ($1 - 1) % (n % 2 == 1 ? 2 * n : n) )) j b
  order=()
  for ((j = 0; j < n; j++)); do
    if ((j == 0)); then b=0; elif ((j % 2 == 1)); then b=$(( (j + 1) / 2 )); else b=$(( n - j / 2 )); fi
    order+=($(( (b + q) % n )))
  done
  if ((q >= n)); then
    local back=()
    for ((j = n - 1; j >= 0; j--)); do back+=("${order[$j]}"); done
    order=("${back[@]}")
  fi
}
after=""
for ((r = 1; r <= runs; r++)); do
  round_order "$r"
  for i in "${order[@]}"; do
    out="$work/out.$i"
    cmd=${commands[$i]//\{out\}/$out}
    rm -f "$out"
    # Wall seconds from bash's clock (microseconds; /usr/bin/time's %e has 10 ms steps, as long as
    # a small file's whole run), peak RSS from /usr/bin/time.
    t_start=$EPOCHREALTIME
    /usr/bin/time -f "%e %M" -o "$work/time" bash -c "$cmd" > "$work/stdout" 2> "$work/stderr"
    rc=$?
    t_end=$EPOCHREALTIME
    read -r _ kb < <(tail -n 1 "$work/time")
    secs=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.4f", b - a }')
    same=null
    if [ -n "$ref" ]; then
      if cmp -s "$out" "$ref"; then same=true; else same=false; failed=1; fi
    fi
    [ $rc -ne 0 ] && failed=1
    printf '{"label": "%s", "run": %d, "after": "%s", "seconds": %s, "max_rss_kb": %s, "rc": %d, "output_bytes": %d, "same_as_ref": %s, "command": "%s"}\n' \
      "${labels[$i]}" "$r" "$after" "$secs" "$kb" "$rc" "$(stat -c %s "$out" 2>/dev/null || echo 0)" "$same" "${cmd//\"/\\\"}" >> "$jsonl"
    times[$i]="${times[$i]:-} $secs"
    [ $rc -ne 0 ] && { echo "wall-ab: ${labels[$i]} exited $rc:" >&2; tail -n 3 "$work/stderr" >&2; }
    [ "$same" = false ] && echo "wall-ab: ${labels[$i]}: the output differs from $ref" >&2
    rm -f "$out"
    after=${labels[$i]}
  done
done
for i in "${!labels[@]}"; do
  med=$(tr ' ' '\n' <<< "${times[$i]}" | grep . | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
  echo "wall-ab: ${labels[$i]}: median ${med} s of ${times[$i]# }" >&2
done
exit $failed
