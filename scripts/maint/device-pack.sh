#!/usr/bin/env bash
# Packs what a GPU host needs beside the working tree (a host reached by copying the tree and a few
# archives, with a size limit per copy): the bundle as two archives under .data/ (ignored by
# git), the bundle without nvCOMP and without the CPU test binary (CI runs the CPU tests), and
# nvCOMP's library alone (about 22 MB compressed, optional); then prints each archive's size, the
# tracked tree's, and what is left of the 64 MiB for datasets (copy the compressed datasets you need
# under .data/mirror/: datasets/fetch.py --mirror reads them there).
#
#   scripts/maint/device-pack.sh [--build DIR]
#
# On the device: scripts/gpu-check.sh --unpack .data/bundle-core.tar.xz [--unpack .data/nvcomp.tar.xz] ...
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build"
[ "${1:-}" = "--build" ] && build="$2"
cmake --build "$build" --target bundle >/dev/null
mkdir -p "$root/.data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$build/bundle" "$tmp/bundle"
rm -f "$tmp/bundle/parcomp-tests-cpu"
nvcomp=$(ls "$tmp/bundle"/libnvcomp.so* 2>/dev/null || true)
if [ -n "$nvcomp" ]; then
  tar cJf "$root/.data/nvcomp.tar.xz" -C "$tmp/bundle" $(cd "$tmp/bundle" && ls libnvcomp.so*)
  rm -f "$tmp/bundle"/libnvcomp.so*
fi
tar cJf "$root/.data/bundle-core.tar.xz" -C "$tmp" bundle
mib() { python3 -c "print(f'{$1 / 2**20:.1f} MiB')"; }
tree=$(git -C "$root" ls-files -z | (cd "$root" && xargs -0 du -cb 2>/dev/null) | tail -1 | cut -f1)
core=$(stat -c %s "$root/.data/bundle-core.tar.xz")
echo "tracked tree:            $(mib "$tree")"
echo ".data/bundle-core.tar.xz $(mib "$core")"
left=$((64 * 1048576 - tree - core))
if [ -n "$nvcomp" ]; then
  nv=$(stat -c %s "$root/.data/nvcomp.tar.xz")
  echo ".data/nvcomp.tar.xz      $(mib "$nv")"
  echo "left for datasets: $(mib "$left") without nvCOMP, $(mib $((left - nv))) with it"
else
  echo "left for datasets: $(mib "$left") (built without nvCOMP)"
fi
