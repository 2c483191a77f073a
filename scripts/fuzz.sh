#!/usr/bin/env bash
# libFuzzer on the .bz2 format's CPU code, with AddressSanitizer and UBSan: the one-core reader
# against bzip2's program over libbz2 (tests/fuzz/fuzz_bz2_read.cpp) and the one-core writer
# against libbz2's bytes (tests/fuzz/fuzz_bz2_write.cpp). Needs clang with libFuzzer (Debian:
# clang); without it, says so and exits 0 unless --require is given. The seed corpus is written
# here (bzip2 files of short texts, runs, several streams, trailing bytes); what the fuzzer finds
# is kept under $PARCOMP_BUILD/fuzz/corpus-*; a crash leaves its input in $PARCOMP_BUILD/fuzz and
# fails the run.
#
#   scripts/fuzz.sh [--seconds N (each target; default 60)] [--require] [--jobs N]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
seconds=60 require=0 jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --require) require=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    *) die "usage: scripts/fuzz.sh [--seconds N] [--require] [--jobs N]" ;;
  esac
done
CLANGXX=${CLANGXX:-clang++}
dir="$PARCOMP_BUILD/fuzz"
mkdir -p "$dir"
if ! command -v "$CLANGXX" >/dev/null 2>&1 ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
     "$CLANGXX" -fsanitize=fuzzer -x c++ - -o "$dir/probe" >/dev/null 2>&1; then
  [ "$require" = 1 ] && die "no clang++ with libFuzzer (apt-get install clang)"
  say "fuzz: skipped (no clang++ with libFuzzer; apt-get install clang)"
  exit 0
fi
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$PARCOMP_ROOT" -I"$PARCOMP_ROOT/include" -I"$PARCOMP_ROOT/tests")
lib=(codec/bz2.cpp core/crc32.cpp core/codes.cpp core/parallel.cpp)
cd "$PARCOMP_ROOT"
say "fuzz: building with $CLANGXX"
"$CLANGXX" "${flags[@]}" tests/fuzz/fuzz_bz2_read.cpp "${lib[@]}" -lbz2 -o "$dir/fuzz_bz2_read" &
"$CLANGXX" "${flags[@]}" tests/fuzz/fuzz_bz2_write.cpp tests/common/bz2_writer.cpp reference/bwt.cpp "${lib[@]}" -ldivsufsort -lbz2 -o "$dir/fuzz_bz2_write" &
wait %1 && wait %2 || die "fuzz: build failed"

# Seeds: real files, so that the fuzzer starts inside the format.
seeds="$dir/seeds-read"
rm -rf "$seeds" && mkdir -p "$seeds" "$dir/seeds-write"
python3 - "$seeds" "$dir/seeds-write" <<'PY'
import bz2, random, sys
read, write = sys.argv[1], sys.argv[2]
rng = random.Random(1)
texts = [b"", b"a", b"hello, world\n" * 3, bytes(range(256)), b"a" * 1000, b"ab" * 300,
         bytes(rng.choice(b"abcdefgh") for _ in range(3000)), bytes(rng.randrange(256) for _ in range(2000)),
         b"".join(bytes([rng.randrange(4)]) * rng.choice([1, 3, 4, 5, 255, 256, 300]) for _ in range(60))]
n = 0
for i, t in enumerate(texts):
    for level in (1, 9):
        z = bz2.compress(t, level)
        for name, body in ((f"{i}-{level}", z), (f"{i}-{level}-two", z + bz2.compress(t[::-1], 5)), (f"{i}-{level}-junk", z + b"junk")):
            open(f"{read}/{name}.bz2", "wb").write(body)
    open(f"{write}/{i}", "wb").write(bytes([i]) + t)
PY
cat > "$dir/bz2.dict" <<'DICT'
"BZh9"
"BZh1"
"\x31\x41\x59\x26\x53\x59"
"\x17\x72\x45\x38\x50\x90"
DICT
status=0
for t in read write; do
  corpus="$dir/corpus-$t"
  mkdir -p "$corpus"
  say "fuzz_bz2_$t: ${seconds} s"
  (cd "$dir" && "./fuzz_bz2_$t" "$corpus" "$dir/seeds-$t" -dict="$dir/bz2.dict" -max_len=65536 -rss_limit_mb=4096 \
     -max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" -print_final_stats=1 2>"$dir/fuzz_bz2_$t.log") || status=1
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|ERROR|fuzz_bz2_$t:" "$dir/fuzz_bz2_$t.log" | sed "s/^/  /" >&2 || true
  [ $status = 0 ] || { tail -40 "$dir/fuzz_bz2_$t.log" >&2; die "fuzz_bz2_$t found a failure: its input is in $dir (crash-*)"; }
done
say "fuzz: no failure"
