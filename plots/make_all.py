#!/usr/bin/env python3
"""Regenerate every figure that a parcomp-bench JSON file has results for.

    python3 plots/make_all.py RESULT.json [--out plots/out]

Each plots/<id>.py script with EXPERIMENT and PAPER_NOTE is one experiment id; ids with no
results in the file are listed as skipped.
"""
import argparse
import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import common  # noqa: E402


def plot_modules():
    for path in sorted(HERE.glob("*.py")):
        if path.name in {"common.py", "make_all.py"}:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if hasattr(module, "EXPERIMENT"):
            yield module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", type=Path)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    args = ap.parse_args(argv)
    res = common.load(args.result)
    made = 0
    for module in plot_modules():
        if not res.select(module.EXPERIMENT, key=None):
            print(f"skipped {module.EXPERIMENT}: no results in {args.result}", file=sys.stderr)
            continue
        print(common.plot_module_figure(module, res, args.out))
        made += 1
    if made == 0:
        print(f"no figure made: {args.result} holds no known experiment", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
