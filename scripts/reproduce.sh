#!/usr/bin/env bash
# The main job: install what is missing, build, prepare data, run the benchmarks one experiment
# at a time with a progress line after each (time spent, an estimate of what is left), write
# results/<gpu>/<date>-<time>-<sha>/run.json and regenerate the plots into plots/out/.
#
#   scripts/reproduce.sh [--filter REGEX] [--quick] [--fetch] [--with-nvcomp] [--results DIR] [--plots DIR]
#                        [-- extra parcomp-bench args]
#
# --filter  Google Benchmark regex (default: every benchmark), e.g. 'parle.encode/gpu'
# --quick   sizes up to 2^20 and one repetition: a check that everything runs, not a result
# --fetch   fetch the real datasets first (datasets/fetch.py all; --mirror via $PARCOMP_MIRROR)
# --with-nvcomp  install NVIDIA nvCOMP with pip (nvidia-libnvcomp-cu13, NVIDIA's proprietary
#           license; never part of this repository) so that codecs.landscape's nvCOMP rows run
# --results the folder of results/<gpu>/ (default: results/ of the repository)
# --plots   where the plots go (default: plots/out/)
# Without a CUDA device only the CPU baselines run, and the script says so. Rows skipped for what the
# machine lacks (a dataset, a program, nvCOMP) are in the result file as skipped, with the reason and
# the command that brings it; the run still succeeds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

filter="."
quick=0
fetch=0
nvcomp=0
extra=()
results_root="$PARCOMP_ROOT/results"
plots_dir="$PARCOMP_ROOT/plots/out"
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --fetch) fetch=1; shift ;;
    --with-nvcomp) nvcomp=1; shift ;;
    --results) results_root="$2"; shift 2 ;;
    --plots) plots_dir="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done

ensure_deps
if [ "$nvcomp" = 1 ] && ! python3 "$PARCOMP_ROOT/scripts/find_nvcomp.py" --cmake-dir >/dev/null 2>&1; then
  say "installing NVIDIA nvCOMP with pip (nvidia-libnvcomp-cu13; NVIDIA's license applies)"
  python3 -m pip install -q nvidia-libnvcomp-cu13 || die "pip could not install nvidia-libnvcomp-cu13"
fi
build_all
bench="$PARCOMP_BUILD/bench/parcomp-bench"

if [ $fetch -eq 1 ]; then
  say "fetching datasets"
  python3 "$PARCOMP_ROOT/datasets/fetch.py" all \
    || say "some datasets could not be fetched (see above): their benchmarks will be reported as skipped"
else
  say "data: the built-in synthetic generators (no download needed; --fetch for the real datasets)"
fi

info=$("$bench" --parcomp_device_info)
gpu=$(python3 -c 'import json,sys; d=json.load(sys.stdin)["device"]; print(d["slug"] if d else "")' <<<"$info")
if [ -z "$gpu" ]; then
  reason=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("device_note",""))' <<<"$info")
  say "NO CUDA DEVICE ($reason): running the CPU baselines only; every GPU benchmark is SKIPPED."
  filter="($filter).*cpu\\.|cpu\\..*($filter)"
  gpu="no-gpu-$(hostname -s)"
fi
sha=$(git -C "$PARCOMP_ROOT" rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
outdir="$results_root/$gpu"
out="$outdir/$(date -u +%Y%m%d-%H%M%S)-$sha/run.json"
mkdir -p "$(dirname "$out")"
args=()
[ $quick -eq 1 ] && args+=(--parcomp_max_log2=20 --benchmark_repetitions=1)
# One experiment at a time, with a progress line after each (scripts/run_experiments.py); the
# estimate of what is left comes from the newest earlier run on this GPU that recorded its
# experiments' seconds.
earlier=$(python3 - "$outdir" <<'PY'
import json, sys
from pathlib import Path
best = ""
for p in sorted(Path(sys.argv[1]).glob("*/run.json")):
    try:
        if "experiment_seconds" in json.loads(p.read_text()).get("context", {}):
            best = str(p)
    except (OSError, ValueError):
        pass
print(best)
PY
)
say "running parcomp-bench one experiment at a time: filter '$filter' ${args[*]} ${extra[*]}"
status=0
python3 "$PARCOMP_ROOT/scripts/run_experiments.py" "$bench" --out "$out" --filter "$filter" ${earlier:+--estimate "$earlier"} \
  -- "${args[@]}" "${extra[@]}" || status=$?
say "results: $out"
[ -f "$out" ] || die "no results were written"
python3 "$PARCOMP_ROOT/plots/make_all.py" "$out" --out "$plots_dir"
say "plots: $plots_dir/"
[ $status -eq 0 ] || die "some benchmark calls failed (see above); the results and plots hold the others"
