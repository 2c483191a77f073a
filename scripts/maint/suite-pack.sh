#!/usr/bin/env bash
# Prepares what the jobs of a whole-suite run take to the GPU host (scripts/maint/suite-call.sh): the pinned
# commit built from a clean worktree, its bundle without the test binaries and nvCOMP's library
# as two archives, and the dataset mirror split in two folders that each fit a call beside them.
#
#   scripts/maint/suite-pack.sh --sha SHA --mirror DIR [--worktree DIR] [--arch 90]
#
# Writes, under the checkout's .data/ (ignored by git):
#   s/bench.tar.xz   the bundle of SHA (parcomp-bench, parcomp, the peers, their libraries, the
#                    scripts), built Release for --arch (default 90: H100 and H200)
#   s/nvcomp.tar.xz  nvCOMP's libnvcomp.so.6 (the bench built with nvCOMP does not start without it)
#   m1/              Calgary, Canterbury and five Silesia files' mirror files (11 MiB)
#   m2/              the Linux tarball's (28 MiB) and three Silesia files' (9 MiB): the call after
#                    one with m1, on the same machine
# and prints the sizes against a copy's size limit with the tracked tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib.sh"
sha="" mirror="" worktree="" arch=90
while [ $# -gt 0 ]; do
  case "$1" in
    --sha) sha="$2"; shift 2 ;;
    --mirror) mirror="$2"; shift 2 ;;
    --worktree) worktree="$2"; shift 2 ;;
    --arch) arch="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "suite-pack: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$sha" ] && [ -n "$mirror" ] || { sed -n '2,16p' "$0"; exit 2; }
full=$(git -C "$root" rev-parse --verify "$sha^{commit}")
worktree=${worktree:-$root/../suite-${full:0:7}}
if [ ! -d "$worktree" ]; then git -C "$root" worktree add --detach "$worktree" "$full"; fi
[ "$(git -C "$worktree" rev-parse HEAD)" = "$full" ] || { echo "suite-pack: $worktree is not at $full" >&2; exit 2; }
[ -z "$(git -C "$worktree" status --porcelain)" ] || { echo "suite-pack: $worktree has changes" >&2; exit 2; }
python3 "$worktree/scripts/find_nvcomp.py" --cmake-dir >/dev/null \
  || { echo "suite-pack: nvCOMP is not installed (python3 -m pip install nvidia-libnvcomp-cu13)" >&2; exit 2; }
cmake -S "$worktree" -B "$worktree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" >/dev/null
cmake --build "$worktree/build" --target bundle >/dev/null
# The bundle carries the programs measured beside parcomp that CMake found here: all of them, or
# the calls would run parts without their rows (scripts/maint/suite-call.sh refuses such a bundle too).
missing=$(missing_peers "$worktree/build/bundle")
[ -z "$missing" ] || { echo "suite-pack: the bundle lacks $missing: apt-get install $missing, then run this again" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$worktree/build/bundle" "$tmp/bundle"
rm -f "$tmp/bundle/parcomp-tests-cpu" "$tmp/bundle/parcomp-tests-gpu"
mkdir -p "$root/.data/s"
(cd "$tmp/bundle" && tar cJf "$root/.data/s/nvcomp.tar.xz" libnvcomp.so*) && rm -f "$tmp/bundle"/libnvcomp.so*
tar cJf "$root/.data/s/bench.tar.xz" -C "$tmp" bundle
# Balanced so that each call keeps about 10 MiB of room for the parts the tree gathers.
rm -rf "$root/.data/m1" "$root/.data/m2" && mkdir -p "$root/.data/m1/silesia" "$root/.data/m2/silesia"
cp "$mirror"/calgary.tar.gz "$mirror"/cantrbry.tar.gz "$root/.data/m1/"
for f in dickens mr nci reymont xml; do cp "$mirror/silesia/$f.bz2" "$root/.data/m1/silesia/"; done
for f in ooffice osdb x-ray; do cp "$mirror/silesia/$f.bz2" "$root/.data/m2/silesia/"; done
cp "$mirror"/linux-2.6.11.1.tar.xz "$root/.data/m2/"
mib() { python3 -c "print(f'{$1 / 2**20:.1f} MiB')"; }
tree=$(git -C "$root" ls-files -z | (cd "$root" && xargs -0 du -cb 2>/dev/null) | tail -1 | cut -f1)
s=$(du -cb "$root/.data/s"/*.tar.xz | tail -1 | cut -f1)
m1=$(du -cb "$root/.data/m1" | tail -1 | cut -f1)
m2=$(du -cb "$root/.data/m2" | tail -1 | cut -f1)
echo "tracked tree $(mib "$tree"), .data/s $(mib "$s"), .data/m1 $(mib "$m1"), .data/m2 $(mib "$m2")"
echo "first call (carry .data/s .data/m1): $(mib $((tree + s + m1))) of 64 MiB; the next, on the same machine (carry .data/m2): $(mib $((tree + m2)))"
