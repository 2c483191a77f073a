#!/usr/bin/env bash
# Wall-clock times of .bz2 work, as a user waits for it: parcomp by default (the GPUs from 128 MiB
# of input, else the CPU workers), on the GPU (--gpu) and on the CPU workers (--cpu) beside
# lbzip2, pbzip2 and `cat in > out` (the host's file-to-file ceiling), each
# a whole process from start to exit, the input in the page cache, the output written to a file
# under DIR's tmpfs work folder, every output compared with the input or with bzip2 -9's bytes.
# Inputs: FILE, and FILE repeated COPIES times (default 5; 0 leaves it out). Two runs each.
# With --ncu, the GPU kernels' times for one compression and one decompression of FILE (Nsight
# Compute, serialised kernels: device-resident times, not wall). With --ncu-source, also where three
# kernels spend their time: the decoder's walk (group_starts_kernel: header, tables, the walk of the
# Huffman codes; ncu-symbols-*), its inverse MTF on chunks (mtf_local; ncu-mtf-*) and the encoder
# (encode_kernel; ncu-encode-*): ncu's warp-stall samples and instructions per CUDA source line
# (the build has -lineinfo) into ncu-NAME-source.csv, the report itself (ncu-NAME.ncu-rep) for the
# Nsight Compute GUI; scripts/ncu_lines.py NAME-source.csv lists the busiest lines.
#
#   bz2-times.sh FILE [--out DIR] [--copies N] [--work DIR] [--ncu] [--ncu-source] [--bin DIR]
#
# DIR gets times.jsonl (one line a run), stats-*.json (parcomp --stats), trace-*.json (parcomp
# --trace: the timelines of the --gpu runs and of the default decompression; plots/tool_timeline.py
# draws them), env.txt (nvidia-smi, nvcc,
# host) and ncu-*.csv; scripts/maint/collect_bz2_times.py turns DIR into results/<gpu>/...bz2-times.json.
# The tools are found on PATH (the device bundle carries lbzip2, pbzip2 and bzip2 beside parcomp).
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,15p' "$0"; exit 2; }
file=$1; shift
out=${OUT:-$PWD}/bz2-times copies=5 work=/dev/shm/parcomp-bz2-times ncu=0 ncu_source=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --copies) copies=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --ncu) ncu=1; shift ;;
    --ncu-source) ncu_source=1; shift ;;
    --bin) export PATH="$2:$PATH"; shift 2 ;;
    *) echo "bz2-times: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -r "$file" ] || { echo "bz2-times: cannot read $file" >&2; exit 2; }
for p in parcomp lbzip2 pbzip2; do command -v $p >/dev/null || { echo "bz2-times: $p not on PATH" >&2; exit 2; }; done
mkdir -p "$out" "$work"
trap 'rm -rf "$work"' EXIT
J=$out/times.jsonl
: > "$J"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)";
  echo "file $(basename "$file") $(sha256sum "$file" | cut -d' ' -f1)"
  # the build's commit (parcomp --version's second line)
  parcomp --version | awk '/^built from commit/ {print $4 ($5 == "" ? "" : "-dirty"); found = 1} END {if (!found) print "unknown"}'
} > "$out/env.txt" 2>&1
W=$work
run() {  # run LABEL INPUT_BYTES REFERENCE|- command...
  local label=$1 n=$2 want=$3; shift 3
  for rep in 1 2; do
    /usr/bin/time -f "%e %M" -o "$W/tm" "$@" > "$W/o" 2> "$W/err"
    local rc=$? ok=null secs kb
    [ "$want" != - ] && { cmp -s "$W/o" "$want" && ok=true || ok=false; }
    read -r secs kb < <(tail -n 1 "$W/tm")  # after "Command exited with non-zero status N"
    printf '{"label": "%s", "rep": %d, "input_bytes": %d, "seconds": %s, "max_rss_kb": %s, "rc": %d, "output_bytes": %d, "same_as_reference": %s}\n' \
      "$label" $rep "$n" "$secs" "$kb" $rc "$(stat -c %s "$W/o")" $ok >> "$J"
  done
  echo "bz2-times: $label: $(tail -1 "$J" | grep -o '"seconds": [0-9.]*')" >&2
}
one() {  # one TAG INPUT
  local tag=$1 in=$2 n
  n=$(stat -c %s "$in")
  parcomp --cpu -9 -c "$in" > "$W/$tag.b.bz2"  # bzip2 -9's bytes (tests/cpu/test_bz2.cpp)
  lbzip2 -9 -n "$(nproc)" -c "$in" > "$W/$tag.l.bz2"
  pbzip2 -9 -p"$(nproc)" -c "$in" > "$W/$tag.p.bz2"
  run "$tag cat" "$n" "$in" cat "$in"
  run "$tag parcomp -9" "$n" "$W/$tag.b.bz2" parcomp -9 -c "$in"
  run "$tag parcomp -9 --gpu" "$n" "$W/$tag.b.bz2" parcomp -9 --gpu -c "$in"
  run "$tag parcomp -9 --cpu" "$n" "$W/$tag.b.bz2" parcomp -9 --cpu -c "$in"
  run "$tag lbzip2 -9" "$n" - lbzip2 -9 -n "$(nproc)" -c "$in"
  run "$tag pbzip2 -9" "$n" - pbzip2 -9 -p"$(nproc)" -c "$in"
  for m in b l p; do
    run "$tag parcomp -d ($m-made)" "$n" "$in" parcomp -d -c "$W/$tag.$m.bz2"
    run "$tag parcomp -d --gpu ($m-made)" "$n" "$in" parcomp -d --gpu -c "$W/$tag.$m.bz2"
    run "$tag parcomp -d --cpu ($m-made)" "$n" "$in" parcomp -d --cpu -c "$W/$tag.$m.bz2"
  done
  run "$tag lbzip2 -d (b-made)" "$n" "$in" lbzip2 -d -n "$(nproc)" -c "$W/$tag.b.bz2"
  run "$tag lbzip2 -d (l-made)" "$n" "$in" lbzip2 -d -n "$(nproc)" -c "$W/$tag.l.bz2"
  run "$tag pbzip2 -d (p-made)" "$n" "$in" pbzip2 -d -p"$(nproc)" -c "$W/$tag.p.bz2"
  parcomp -v -9 --gpu -c --stats "$out/stats-$tag-compress-gpu.json" --trace "$out/trace-$tag-compress-gpu.json" "$in" > /dev/null 2>> "$out/verbose.txt"
  parcomp -v -d --gpu -c --stats "$out/stats-$tag-decompress-gpu.json" --trace "$out/trace-$tag-decompress-gpu.json" "$W/$tag.b.bz2" > /dev/null 2>> "$out/verbose.txt"
  parcomp -v -d -c --trace "$out/trace-$tag-decompress-default.json" "$W/$tag.b.bz2" > /dev/null 2>> "$out/verbose.txt"
  rm -f "$W/$tag".?.bz2 "$W/o"
}
one x1 "$file"
if [ "$copies" -gt 1 ]; then
  for ((k = 0; k < copies; k++)); do cat "$file"; done > "$W/copies"
  one "x$copies" "$W/copies"
  rm -f "$W/copies"
fi
if [ $ncu -eq 1 ]; then
  parcomp --cpu -9 -c "$file" > "$W/b.bz2"
  ncu --metrics gpu__time_duration.sum --csv --log-file "$out/ncu-decompress.csv" parcomp -d --gpu -c "$W/b.bz2" > /dev/null 2>&1
  ncu --metrics gpu__time_duration.sum --csv --log-file "$out/ncu-compress.csv" parcomp -9 --gpu -c "$file" > /dev/null 2>&1
fi
# ncu's source counters of one kernel: NAME KERNEL_REGEX command... into ncu-NAME.ncu-rep,
# ncu-NAME-source.csv (per CUDA line and SASS) and ncu-NAME-details.csv.
source_profile() {
  local name=$1 kernel=$2; shift 2
  ncu --section SourceCounters --section WarpStateStats --section LaunchStats --import-source yes --kernel-name-base demangled -k "regex:$kernel" -c 1 \
    -f -o "$out/ncu-$name" "$@" > /dev/null 2> "$out/ncu-$name.log"
  # Per source line: the CUDA lines with their SASS (older ncu: the default view).
  ncu -i "$out/ncu-$name.ncu-rep" --page source --csv --print-source cuda,sass > "$out/ncu-$name-source.csv" 2>> "$out/ncu-$name.log" ||
    ncu -i "$out/ncu-$name.ncu-rep" --page source --csv > "$out/ncu-$name-source.csv" 2>> "$out/ncu-$name.log"
  ncu -i "$out/ncu-$name.ncu-rep" --page details --csv > "$out/ncu-$name-details.csv" 2>> "$out/ncu-$name.log"
}
if [ $ncu_source -eq 1 ]; then
  [ -s "$W/b.bz2" ] || parcomp --cpu -9 -c "$file" > "$W/b.bz2"
  source_profile symbols group_starts_kernel parcomp -d --gpu -c "$W/b.bz2"
  source_profile mtf mtf_local parcomp -d --gpu -c "$W/b.bz2"
  source_profile encode encode_kernel parcomp -9 --gpu -c "$file"
fi
