#!/usr/bin/env bash
# The end of a whole-suite run (scripts/maint/suite-call.sh), where there is no GPU: merges one GPU's
# committed parts into one result file, adds thesis.bytes_per_char from the Nsight Compute profile
# kept beside them, and draws every figure from it.
#
#   scripts/maint/suite-merge.sh --sha SHA --gpu SLUG [--bench PINNED_PARCOMP_BENCH]
#
# Reads results/SLUG/suite-SHA/parts.tar.xz (and profile.json.gz, if there). The parts are checked
# against the pinned build's benchmark list (--bench; default: the build scripts/maint/suite-pack.sh made,
# ../suite-SHA/build/bench/parcomp-bench): while a part lacks rows, it lists them and exits 3,
# writing nothing. Once all are there it writes
#   results/SLUG/suite-SHA/run.json.gz   the merged run (context.experiment_seconds, unit_seconds,
#                                        run_seconds, merged_runs, parcomp_dropped)
#   results/SLUG/suite-SHA/figures/      every figure plots/make_all.py draws from it
# for scripts/compare and the RESULTS notes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib.sh"  # the suite's split, shared with suite-call.sh
sha="" gpu="" bench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sha) sha="$2"; shift 2 ;;
    --gpu) gpu="$2"; shift 2 ;;
    --bench) bench="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "suite-merge: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$sha" ] && [ -n "$gpu" ] || { sed -n '2,16p' "$0"; exit 2; }
dir=${SUITE_RESULTS:-$root/results}/$gpu/suite-$sha  # SUITE_RESULTS: another results folder (tests)
[ -f "$dir/parts.tar.xz" ] || { echo "suite-merge: no $dir/parts.tar.xz" >&2; exit 2; }
bench=${bench:-$root/../suite-$sha/build/bench/parcomp-bench}
[ -x "$bench" ] || { echo "suite-merge: no pinned parcomp-bench at $bench (scripts/maint/suite-pack.sh builds it; or pass --bench)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xJf "$dir/parts.tar.xz" -C "$tmp"
# The same split and accepted datasets as the calls (lib.sh's, suite-call.sh's defaults).
status=0
python3 "$root/scripts/run_experiments.py" "$bench" --out "$tmp/run.json" --parts "$tmp" --merge-only \
  --split "$PARCOMP_SUITE_SPLIT" "${PARCOMP_SUITE_ACCEPT_MISSING[@]}" 2>"$tmp/merge.log" || status=$?
grep -v ': done in an earlier call' "$tmp/merge.log" >&2 || true
[ "$status" -eq 0 ] || { echo "suite-merge: $gpu's run at $sha is not complete (exit $status): nothing written" >&2; exit "$status"; }
if [ -f "$dir/profile.json.gz" ]; then
  gzip -dc "$dir/profile.json.gz" >"$tmp/profile.json"
  python3 "$root/scripts/bytes_per_char.py" --profile "$tmp/profile.json" --into "$tmp/run.json" >&2
else
  echo "suite-merge: no profile.json.gz beside the parts: thesis.bytes_per_char is not in the run" >&2
fi
gzip -9c "$tmp/run.json" >"$dir/run.json.gz"
rm -rf "$dir/figures"
python3 "$root/plots/make_all.py" "$dir/run.json.gz" --out "$dir/figures" >&2
echo "suite-merge: $dir/run.json.gz and $dir/figures/" >&2
