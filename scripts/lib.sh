# Shared by scripts/*.sh: dependency checks and installs, configure and build.
# shellcheck shell=bash

PARCOMP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PARCOMP_BUILD=${PARCOMP_BUILD:-$PARCOMP_ROOT/build}
PARCOMP_APT_PACKAGES=(cmake ninja-build g++ clang ccache libbenchmark-dev nlohmann-json3-dev libfmt-dev libgtest-dev libdivsufsort-dev libbz2-dev libzstd-dev lbzip2 pigz pbzip2 zstd bzip2 xz-utils pkg-config python3-pip)

# The programs the benchmarks measure beside parcomp (tool.e2e, bz2.*, codecs.landscape). A device
# bundle must hold every one (scripts/maint/suite-pack.sh and suite-call.sh check): where one is missing
# its rows are not always skipped rows to run later (tool.e2e lists gzip, codecs.landscape
# nothing, where pigz is missing).
PARCOMP_PEER_PROGRAMS=(lbzip2 bzip2 zstd pigz pbzip2)
# How a whole-suite run is cut into parts (suite-call.sh) and merged again (suite-merge.sh): these
# experiments get a part per dataset; enwik8's rows may stay skipped (not in the mirror).
PARCOMP_SUITE_SPLIT='^(codecs\.landscape|bz2\.|tool\.e2e|thesis\.table4_[12]|parle\.)'
PARCOMP_SUITE_ACCEPT_MISSING=(--accept-missing enwik8)

# The peer programs missing from a folder (a bundle), space-separated; nothing when none is.
missing_peers() {
  local p out=""
  for p in "${PARCOMP_PEER_PROGRAMS[@]}"; do [ -x "$1/$p" ] || out+="$p "; done
  printf '%s' "${out% }"
}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# nvcc on PATH, or the toolkit's default location.
find_nvcc() {
  if ! command -v nvcc >/dev/null 2>&1; then
    for d in /usr/local/cuda/bin /usr/local/cuda-13*/bin; do
      if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
    done
  fi
  command -v nvcc >/dev/null 2>&1 || die "nvcc not found: install the CUDA Toolkit 13 (https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH"
}

# Debian/Ubuntu packages and the Python requirements; installs what is missing when it can.
ensure_deps() {
  find_nvcc
  local missing=()
  for p in "${PARCOMP_APT_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if [ -n "$sudo" ] && ! command -v sudo >/dev/null 2>&1; then
      die "missing packages: ${missing[*]} (install them with apt-get as root)"
    fi
    say "installing missing packages: ${missing[*]}"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null \
      || die "apt-get could not install: ${missing[*]}"
  fi
  if ! python3 -c 'import matplotlib, pytest, nanobind, fsspec, indexed_bzip2, pandas, dask.dataframe, distributed' >/dev/null 2>&1; then
    say "installing Python requirements (plots/requirements.txt)"
    python3 -m pip install -q -r "$PARCOMP_ROOT/plots/requirements.txt" \
      || python3 -m pip install -q --break-system-packages -r "$PARCOMP_ROOT/plots/requirements.txt" \
      || die "pip could not install plots/requirements.txt"
  fi
}

# Configure (Release, Ninja, explicit CUDA architectures) and build everything.
build_all() {
  local args=(-S "$PARCOMP_ROOT" -B "$PARCOMP_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release)
  [ -n "${PARCOMP_CUDA_ARCHITECTURES:-}" ] && args+=("-DCMAKE_CUDA_ARCHITECTURES=$PARCOMP_CUDA_ARCHITECTURES")
  say "configuring $PARCOMP_BUILD"
  cmake "${args[@]}" >/dev/null || die "cmake configure failed (run: cmake ${args[*]})"
  say "building (this takes a few minutes on a small machine: nvcc is slow)"
  cmake --build "$PARCOMP_BUILD" --parallel "$(nproc)" || die "build failed"
}
