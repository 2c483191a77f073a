#!/usr/bin/env python3
"""Where NVIDIA nvCOMP is installed by pip (nvidia-libnvcomp-cu13): its CMake package folder.

    scripts/find_nvcomp.py --cmake-dir    # prints .../nvidia/libnvcomp/lib64/cmake/nvcomp
    scripts/find_nvcomp.py --lib-dir      # prints .../nvidia/libnvcomp/lib64

Exit status 1 (and a line on stderr saying how to install it) when it is not installed. CMake
calls it at configure time, so that a user never passes paths; nvCOMP stays optional and is
never part of this repository (NVIDIA's proprietary license).
"""
import argparse
import importlib.util
import os
import sys

INSTALL = "python3 -m pip install nvidia-libnvcomp-cu13"


def root():
    spec = importlib.util.find_spec("nvidia.libnvcomp") if importlib.util.find_spec("nvidia") else None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--cmake-dir", action="store_true")
    what.add_argument("--lib-dir", action="store_true")
    args = ap.parse_args()
    r = root()
    path = None if r is None else os.path.join(r, "lib64", "cmake", "nvcomp") if args.cmake_dir else os.path.join(r, "lib64")
    if path is None or not os.path.isdir(path):
        print(f"nvCOMP is not installed for {sys.executable}: {INSTALL}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
