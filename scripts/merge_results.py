#!/usr/bin/env python3
"""Merge parcomp-bench JSON files of one device run into one result file.

    scripts/merge_results.py FIRST.json OTHER.json [...] -o MERGED.json [--context DEVICE.json]

A GPU call lasts at most 10 minutes, so one experiment's run can take several calls of the same
bundle on the same machine. The merged file keeps FIRST's context and records every other file's
context under context.merged_runs; its benchmarks are all of them, a name seen twice kept from the
first file that has it (with all its repetitions, which share the name) (list the complete run first). Files from different commits, builds or GPUs are refused: they are not one run.
--any-card accepts several cards of one model, driver and CUDA runtime (a run in parts over several
hosts, as scripts/run_experiments.py --parts merges it): context.merged_runs names each
file's card (UUID) and host, context.parcomp_cards the distinct ones.

A file that a time limit cut off while the benchmark library was writing it (a truncated JSON
array) is repaired first: its complete benchmark entries are kept, and the repair is noted in
context.merged_runs.

The parcomp metadata (context.parcomp: build, host, device, datasets) is written when the bench
ends, so a run that every file's time limit cut off has none. --context DEVICE.json gives it from
`parcomp-bench --parcomp_device_info` of the same bundle on the same machine (gpu-check.sh saves it
as device.json): it must name the same commit, GPU and build type as the files, and the merged
file says where its context came from (context.parcomp_context_from).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


class MergeError(Exception):
    pass


def load_repaired(path: Path) -> tuple[dict, bool]:
    """The JSON document, or, for a file cut off inside its "benchmarks" array, the document with
    the entries that were written whole."""
    text = path.read_text()
    try:
        return json.loads(text), False
    except json.JSONDecodeError:
        pass
    start = text.find('"benchmarks": [')
    if start < 0:
        raise MergeError(f"{path}: not a Google Benchmark JSON file, and not one that was cut off in its benchmarks")
    head = json.loads(text[:start].rstrip().rstrip(",") + "}")
    decoder = json.JSONDecoder()
    pos = start + len('"benchmarks": [')
    benchmarks = []
    while True:
        while pos < len(text) and text[pos] in " \r\n\t,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            entry, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break  # the entry the cut went through
        benchmarks.append(entry)
    head["benchmarks"] = benchmarks
    return head, True


def identity(doc: dict, full: bool = True, any_card: bool = False) -> tuple:
    """(commit, GPU name, build type), and with `full` the dirty flag, architectures and GPU UUID
    (with `any_card`, the driver release and CUDA runtime instead of the UUID: another card of the
    same model). A cut-off file has only the short context keys that the benchmark library writes
    first (the parcomp metadata block comes at the end), so it is compared on those."""
    c = doc.get("context", {})
    p = c.get("parcomp", {})
    short = (c.get("parcomp_git_sha"), c.get("parcomp_gpu"), c.get("parcomp_build_type"))
    if not full:
        return short
    device = p.get("device") or {}
    build = p.get("build", {})
    card = ((device.get("nvidia_driver_release"), device.get("runtime_version")) if any_card else (device.get("uuid"),))
    return short + (build.get("git_dirty"), build.get("cuda_architectures")) + card


def card_of(doc: dict) -> dict:
    """Which card and host a file ran on (its parcomp metadata; empty for a cut-off file)."""
    p = doc.get("context", {}).get("parcomp", {})
    device, host = p.get("device") or {}, p.get("host") or {}
    return {k: v for k, v in (("gpu_uuid", device.get("uuid")), ("host", host.get("hostname") or doc.get("context", {}).get("host_name")))
            if v}


def merge(paths: list[Path], context: Path | None = None, any_card: bool = False) -> dict:
    """The merged document. `any_card`: the files may come from several cards of the same model,
    driver and CUDA runtime (a run in parts over several hosts); each file's card and host
    are recorded in context.merged_runs and the distinct ones in context.parcomp_cards."""
    docs = [(p, *load_repaired(p)) for p in paths]
    first_path, first, first_repaired = docs[0]
    context_from = None
    if "parcomp" not in first.get("context", {}):
        if context is None:
            raise MergeError(f"{first_path}: the first file must be complete (its context gives the merged file's), "
                             "or --context must give the run's parcomp metadata")
        info = json.loads(context.read_text())
        build, device = info.get("build", {}), info.get("device") or {}
        sha = build.get("git_sha", "") + ("-dirty" if build.get("git_dirty") else "")
        mine = (sha, device.get("name"), build.get("build_type"))
        if mine != identity(first, False):
            raise MergeError(f"{context} describes another run than {first_path}: {mine} vs {identity(first, False)}")
        first = dict(first)
        first["context"] = dict(first["context"], parcomp=info)
        context_from = f"{context.name}: parcomp-bench --parcomp_device_info of the same bundle on the same machine ({info.get('date_utc')})"
    merged_runs = []
    cards: dict[tuple, dict] = {}
    # Every file's dataset records (context.parcomp.datasets), not only the first's: a part's own
    # inputs (tool/, bz2/, the real datasets) are recorded by the process that loaded them. One key
    # with two sha256 is two inputs under one name: refused.
    datasets: dict[str, dict] = {}
    datasets_from: dict[str, Path] = {}
    # A name's entries (its repetitions share the name) all come from the first file that has it.
    by_name: dict[str, list[dict]] = {}
    order: list[str] = []
    for path, doc, repaired in docs:
        full = "parcomp" in doc.get("context", {}) and "parcomp" in first.get("context", {})
        if identity(doc, full, any_card) != identity(first, full, any_card) or None in identity(doc, False):
            raise MergeError(f"{path} is from another run than {first_path} (commit, build or GPU differ"
                             f"{'' if any_card else '; parts from several cards of one model: any_card'}): "
                             f"{identity(doc, full, any_card)} vs {identity(first, full, any_card)}")
        for key, record in doc.get("context", {}).get("parcomp", {}).get("datasets", {}).items():
            if key in datasets and datasets[key].get("sha256") != record.get("sha256"):
                raise MergeError(f"dataset {key} differs between {datasets_from[key]} and {path} "
                                 f"(sha256 {datasets[key].get('sha256')} vs {record.get('sha256')})")
            datasets.setdefault(key, record)
            datasets_from.setdefault(key, path)
        if card_of(doc):
            cards.setdefault((card_of(doc).get("gpu_uuid"), card_of(doc).get("host")), card_of(doc))
        if path is not first_path or repaired:
            merged_runs.append({"file": path.name, "date": doc.get("context", {}).get("date"),
                                "argv": doc.get("context", {}).get("parcomp", {}).get("argv"),
                                "benchmarks": len(doc.get("benchmarks", [])), **card_of(doc),
                                **({"repaired": "cut off by a time limit; the entries written whole are kept"} if repaired else {})})
        mine: dict[str, list[dict]] = {}
        for b in doc.get("benchmarks", []):
            if b["name"] not in by_name:
                mine.setdefault(b["name"], []).append(b)
        for name, entries in mine.items():
            order.append(name)
            by_name[name] = entries
    out = dict(first)
    out["context"] = dict(first["context"])
    if datasets and "parcomp" in out["context"]:
        out["context"]["parcomp"] = dict(out["context"]["parcomp"], datasets=dict(sorted(datasets.items())))
    out["context"]["merged_runs"] = first["context"].get("merged_runs", []) + merged_runs
    if context_from:
        out["context"]["parcomp_context_from"] = context_from
    if any_card:
        out["context"]["parcomp_cards"] = list(cards.values())
    out["benchmarks"] = [b for n in order for b in by_name[n]]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("-o", "--out", type=Path, required=True)
    ap.add_argument("--context", type=Path, help="parcomp-bench --parcomp_device_info output of the run, "
                    "for when every file was cut off")
    ap.add_argument("--any-card", action="store_true", help="files from several cards of the same model, driver and "
                    "CUDA runtime (a run in parts over several hosts): each file's card and host recorded")
    args = ap.parse_args(argv)
    try:
        doc = merge(args.files, args.context, args.any_card)
    except (MergeError, OSError, json.JSONDecodeError) as e:
        print(f"merge_results: {e}", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"{args.out}: {len(doc['benchmarks'])} benchmarks from {len(args.files)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
