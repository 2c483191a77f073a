#!/usr/bin/env python3
"""Build RESULTS.md from results/: nothing in it is typed by hand that a result file could give.

    python3 scripts/report.py            # write RESULTS.md
    python3 scripts/report.py --check    # exit 1 if RESULTS.md is not what results/ gives

Inputs: results/experiments.json (every experiment id, what it measures, the paper's result and
hardware), results/<gpu>/*.json (bench results), results/notes/<id>.md (per experiment: which
result file and figure back it, which tables to show, and the prose: shape, choices), and
results/notes/_intro.md, _gpus.md. The summary gives each note's verdict (front matter
`verdict: holds | partly holds | does not hold`, which its **Shape:** sentence must say too) and its
`headline:`, one number, labelled with the GPU and commit of the note's `source:`.
Numbers in the prose are placeholders resolved from the section's result file:

    {{gbps:EXP/VARIANT/DATASET/n=SIZE}}   GB/s of uncompressed data   ({{mbps:...}} MB/s)
    {{ms:KEY}} {{us:KEY}}                  median time
    {{speedup:KEY}}                        over cpu.serial of the same dataset and size
    {{bw:KEY}}                             bw_util
    {{c.COUNTER:KEY}}                      any counter, e.g. {{c.mean_mtf_index:KEY}}
    {{pct.COUNTER:KEY}}                    a fraction counter as a percentage
    {{ratio:KEY_A|KEY_B}}                  time A / time B
    ...:KEY@results/FILE.json              from another result file
"""
import argparse
import importlib.machinery
import importlib.util
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "plots"))
import common  # noqa: E402
import codecs_landscape  # noqa: E402
import summary  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("compare", str(ROOT / "scripts" / "compare"))
compare = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", _loader))
_loader.exec_module(compare)

PLACEHOLDER = re.compile(r"\{\{([a-z0-9_.]+):([^}]+)\}\}")


class ReportError(Exception):
    pass


def front_matter(text: str) -> tuple[dict, str]:
    meta: dict = {}
    if text.startswith("---\n"):
        head, _, text = text[4:].partition("\n---\n")
        for line in head.splitlines():
            k, _, v = line.partition(":")
            meta.setdefault(k.strip(), []).append(v.strip())
    return meta, text.strip() + "\n"


class Sources:
    def __init__(self, root: Path):
        self.root = root
        self.cache: dict[str, common.Results] = {}

    def get(self, path: str) -> common.Results:
        if path not in self.cache:
            full = self.root / path
            if not full.is_file():
                raise ReportError(f"result file {path} does not exist")
            res = common.load(full)
            if res.parcomp.get("build", {}).get("git_dirty"):
                raise ReportError(f"{path} was measured from a tree with uncommitted changes: no figure comes from one")
            self.cache[path] = res
        return self.cache[path]


def find_row(res: common.Results, key: str) -> common.Row:
    for r in res.rows:
        if f"{r.experiment}/{r.variant}/{r.dataset}/{r.key}={r.value}" == key:
            return r
    raise ReportError(f"{res.path.name}: no benchmark {key}")


def resolve(text: str, sources: Sources, default_source: str | None) -> str:
    def one(m):
        metric, ref = m.group(1), m.group(2)
        ref, _, path = ref.partition("@")
        path = path or default_source
        if path is None:
            raise ReportError(f"placeholder {m.group(0)} has no result file")
        res = sources.get(path)
        if metric == "ratio":
            a, b = ref.split("|")
            return common.fmt_num(find_row(res, a).seconds / find_row(res, b).seconds)
        row = find_row(res, ref)
        if metric == "gbps":
            return common.fmt_num(row.bytes_per_second / 1e9)
        if metric == "mbps":
            return common.fmt_num(row.bytes_per_second / 1e6)
        if metric == "ms":
            return common.fmt_num(row.seconds * 1e3)
        if metric == "us":
            return common.fmt_num(row.seconds * 1e6)
        if metric == "bw":
            return f"{row.counters['bw_util']:.2f}"
        if metric == "speedup":
            cpu = find_row(res, f"{row.experiment}/cpu.serial/{row.dataset}/{row.key}={row.value}")
            return common.fmt_num(cpu.seconds / row.seconds)
        if metric.startswith("c."):
            return common.fmt_num(row.counters[metric[2:]])
        if metric.startswith("pct."):
            return f"{row.counters[metric[4:]] * 100:.4g}"
        raise ReportError(f"unknown placeholder metric {metric}")

    return PLACEHOLDER.sub(one, text)


VERDICTS = ("holds", "partly holds", "does not hold")
SHAPE = re.compile(r"\*\*Shape:\*\*\s*([^.]*)")


def verdict_of(eid: str, meta: dict, prose: str, ours: bool) -> str:
    """The summary's verdict: the note's `verdict:` (holds, partly holds, does not hold), which a
    paper experiment must state and which its first **Shape:** sentence must say too; ours:
    "ours, measured"."""
    if ours:
        return "ours, measured"
    verdict = meta.get("verdict", [""])[0]
    if verdict not in VERDICTS:
        raise ReportError(f"{eid}: the note must state `verdict:` as one of {', '.join(VERDICTS)}")
    m = SHAPE.search(prose)
    if m is None:
        raise ReportError(f"{eid}: the note has no **Shape:** sentence")
    if '"' not in prose[m.start():m.start() + 700]:
        raise ReportError(f"{eid}: the **Shape:** paragraph must quote the paper's sentence it judges")
    sentence = m.group(1).lower()
    said = "does not hold" if ("does not hold" in sentence or "not hold" in sentence) else \
           "partly holds" if "partly" in sentence else "holds" if "holds" in sentence else None
    if said != verdict:
        raise ReportError(f"{eid}: verdict `{verdict}`, but its **Shape:** sentence says {said or 'no verdict'}: "
                          f"{m.group(1)!r}")
    return verdict


def headline_of(eid: str, meta: dict, sources: "Sources") -> str:
    """The summary's one number: the note's `headline:` (placeholders from its source), after the GPU
    and commit of that source."""
    text = meta.get("headline", [""])[0]
    source = meta.get("source", [None])[0]
    if not text or not source:
        raise ReportError(f"{eid}: the note must give `source:` and a `headline:`, the summary's one labelled number")
    res = sources.get(source)
    build = res.parcomp.get("build", {})
    gpu = res.gpu_name or "CPU"
    return f"{gpu.replace('NVIDIA ', '')}, {str(build.get('git_sha', '?'))[:7]}: {resolve(text, sources, source)}"


def anchor(eid: str) -> str:
    return eid.replace(".", "")


def referenced_files(notes: dict) -> list[str]:
    """The result files the notes reference (sources, comparisons, a landscape table's other run):
    the report depends on these alone, so a new run in results/ changes nothing until a note
    points at it."""
    files = []
    for path in notes.values():
        meta, _ = front_matter(path.read_text())
        files += meta.get("source", [])
        files += [spec.split()[i] for spec in meta.get("compare", []) for i in (0, 1)]
        files += [spec.split()[1] for spec in meta.get("table", []) if spec.split()[0] == "landscape" and len(spec.split()) > 1]
        files += [spec.split()[2] for spec in meta.get("table", []) if spec.split()[0] == "e2e" and len(spec.split()) > 2]
    return sorted(set(files))


def measured_on(sources: "Sources", files: list[str], notes: dict | None = None) -> dict[str, list[str]]:
    """experiment id -> GPU folders (results/<gpu>/) of the referenced files with results for it
    (and of the wall-time files a note lists under `times:`)."""
    seen: dict[str, set] = {}
    for f in files:
        for r in sources.get(f).rows:
            seen.setdefault(r.experiment, set()).add(Path(f).parts[1])  # results/<gpu>/...
    for eid, path in (notes or {}).items():
        meta, _ = front_matter(path.read_text())
        for spec in meta.get("times", []):
            seen.setdefault(eid, set()).add(Path(spec.split()[0]).parts[1])
    return {k: sorted(v) for k, v in seen.items()}


def kernels_line(root: Path, spec: str) -> str:
    """A `kernels: FILE compress|decompress` line of a note: the GPU kernels' device times (Nsight
    Compute) of a wall-time file, the largest first."""
    path, _, which = spec.partition(" ")
    d = json.loads((root / path).read_text())
    k = d["kernels_ms"].get(which)
    if not k:
        raise ReportError(f"{path}: no kernel times for {which}")
    def short(name: str) -> str:  # "void ns::<unnamed>::kernel<...>" -> "kernel"
        step = re.search(r"<&(\w+)>", name)
        name = name.replace("<unnamed>::", "").replace("unnamed>::", "").split("<")[0]
        return name.split("::")[-1].replace("void ", "") + (f"<{step.group(1)}>" if step else "")

    top = ", ".join(f"`{short(name)}` {ms:.1f}" for name, ms in list(k.items())[:4])
    return (f"{d['gpu']}, {which} of x1, GPU kernels by Nsight Compute (device time, ms): {sum(k.values()):.1f} in all; "
            f"{top}; {len(k)} kernel kinds.\n")


def times_table(root: Path, spec: str) -> list[str]:
    """A `times: FILE PATTERN` line of a note: the rows of a wall-time file
    (scripts/maint/collect_bz2_times.py) whose label matches PATTERN, with the file's provenance."""
    path, _, pattern = spec.partition(" ")
    full = root / path
    if not full.is_file():
        raise ReportError(f"times file {path} does not exist")
    d = json.loads(full.read_text())
    rx = re.compile(pattern or ".")
    cuda = re.search(r"cuda_([0-9]+(?:\.[0-9]+)*)", d["cuda"])
    lines = [f"`{path}`: {d['gpu']} (driver {d['driver']}, CUDA {cuda.group(1) if cuda else d['cuda']}), {d['host_cores']} host cores, "
             f"commit {d['commit'][:10]}, {d['dataset']['file']} sha256 {d['dataset']['sha256'][:12]}...; "
             f"wall seconds, median of {len(d['rows'][0]['seconds'])} runs:\n",
             "| program | input | seconds | GB/s | of `cat` | output checked |", "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        if not rx.search(r["label"]):
            continue
        checked = {True: "yes", False: "**no**", None: "-"}[r["output_checked"]]
        if r["exit_status"] != [0]:
            checked += f" (exit {r['exit_status']})"
        prog = r["label"].split(" ", 1)[1]
        lines.append(f"| `{prog}` | {r['input']} ({r['input_bytes'] / 1e6:.0f} MB) | {r['median_seconds']:.2f} | "
                     f"{r['gb_per_s']:.3f} | {r['fraction_of_cat']:.0%} | {checked} |")
    return lines + [""]


# The runs a whole program under a minute needs before its median is compared (the suite's rule).
MIN_RUNS = 5


def runs_table(root: Path, spec: str) -> list[str]:
    """A `runs: FILE PATTERN` line of a note: the labels of a same-host A/B file
    (scripts/maint/wall-ab.sh's JSON lines; env.txt beside it names the host and commits) that match
    PATTERN, each with its median, min and max wall seconds, runs, peak RSS and output check."""
    path, _, pattern = spec.partition(" ")
    full = root / path
    if not full.is_file():
        raise ReportError(f"runs file {path} does not exist")
    rx = re.compile(pattern or ".")
    by_label: dict[str, list[dict]] = {}
    for line in full.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            by_label.setdefault(r["label"], []).append(r)
    env = full.parent / "env.txt"
    host = []
    if env.is_file():  # nvidia-smi's name, driver, memory lines; "cores N"; "built from commit ..." lines
        text = env.read_text().splitlines()
        dirty = [ln for ln in text if ln.startswith("built from commit") and "uncommitted" in ln]
        if dirty:
            raise ReportError(f"{path}: {dirty[0]!r}: no figure comes from a tree with uncommitted changes")
        gpus = [ln.split(",") for ln in text if ln.startswith("NVIDIA ")]
        if gpus:
            host.append(f"{len(gpus)}x {gpus[0][0].strip()} (driver {gpus[0][1].strip()})")
        host += [ln.strip().replace("cores ", "host cores ") for ln in text if ln.startswith("cores ")]
        built = [ln.split()[-1][:7] for ln in text if ln.startswith("built from commit")]
        host += [f"{name} built at {sha}" for name, sha in zip(["parcomp", "parcomp-old"], built)]
    lines = [f"`{path}`" + (f" ({', '.join(host)})" if host else "") + ":\n",
             "| run | command | seconds, median [min, max] | runs | peak RSS | exit 0, output checked |", "|---|---|---|---|---|---|"]
    def rss(rs: list[dict]) -> str:  # not measured where a run's work is not one process of its own
        kb = [r.get("max_rss_kb") for r in rs]
        return "-" if any(k is None for k in kb) else f"{max(kb) / 1e6:.2f} GB"

    few = []  # labels run fewer than MIN_RUNS times though a run took under a minute
    for label, rs in by_label.items():
        if not rx.search(label):
            continue
        secs = sorted(r["seconds"] for r in rs)
        if len(secs) < MIN_RUNS and statistics.median(secs) < 60:
            few.append(f"`{label}` ({len(secs)})")
        ok = all(r["rc"] == 0 for r in rs)
        checked = {True: "yes", False: "**no**", None: "not compared"}[None if all(r["same_as_ref"] is None for r in rs)
                                                                     else all(r["same_as_ref"] is True for r in rs)]
        lines.append(f"| `{label}` | `{rs[0]['command'].replace('|', '&#124;')}` | {statistics.median(secs):.2f} [{secs[0]:.2f}, {secs[-1]:.2f}] | "
                     f"{len(secs)} | {rss(rs)} | {'yes' if ok else '**no**'}, {checked} |")
    if few:
        lines += ["", f"Fewer than {MIN_RUNS} runs of a program that ran under a minute: {', '.join(few)}; "
                      "read these rows as indications, not as a comparison."]
    return lines + [""]


def build(root: Path = ROOT) -> str:
    results = root / "results"
    experiments = json.loads((results / "experiments.json").read_text())["experiments"]
    sources = Sources(root)
    notes = {p.stem: p for p in (results / "notes").glob("*.md")}
    measured = measured_on(sources, referenced_files(notes), notes)
    out = []
    _, intro = front_matter((results / "notes" / "_intro.md").read_text())
    out.append(intro)
    out.append("## Summary\n")
    out.append("Per experiment: the verdict on the paper's sentence its section quotes (ours: measured), and one "
               "number, labelled with the GPU and commit of its result file. Device-resident numbers are kernels "
               "with the data on the GPU; whole-program numbers are a process from start to exit.\n")
    out.append("| experiment | verdict | one number | GPUs with results |")
    out.append("|---|---|---|---|")
    for e in experiments:
        eid = e["id"]
        gpus = ", ".join(measured.get(eid, [])) or "-"
        if eid in notes:
            meta, prose = front_matter(notes[eid].read_text())
            label = verdict_of(eid, meta, prose, e["paper"].startswith("parcomp (ours)"))
            status = f"[{label}](#{anchor(eid)})"
            number = headline_of(eid, meta, sources)
        elif eid in measured:
            status, number = "measured, no write-up yet", "-"
        else:
            status, number = "not yet", "-"
        out.append(f"| `{eid}` | {status} | {number} | {gpus} |")
    out.append("")
    for e in experiments:
        eid = e["id"]
        if eid not in notes:
            continue
        meta, prose = front_matter(notes[eid].read_text())
        source = meta.get("source", [None])[0]
        out.append(f"## {eid}\n")
        out.append(f"{e['what']}. Source: {e['paper']}.\n")
        out.append(f"**Paper** ({e['paper_hardware']}): {e['paper_result']}.\n")
        if source:
            res = sources.get(source)
            out.append(f"**Ours** (`{source}`; {compare.describe(res)}):\n")
            for spec in meta.get("table", []):
                kind, _, arg = spec.partition(" ")
                if kind == "summary":
                    out.append(summary.table(res, eid, int(arg) if arg else None))
                elif kind == "e2e":  # arg: the experiment, then optionally another result file
                    what, _, other_file = arg.partition(" ")
                    other = sources.get(other_file) if other_file else res
                    if other_file:
                        out.append(f"`{other_file}` ({compare.describe(other)}):\n")
                    out.append(summary.e2e_table(other, what or eid))
                elif kind == "load":
                    out.append(summary.load_table(res, arg or eid))
                elif kind == "sweep":
                    out.append(summary.sweep_table(res, arg or eid))
                elif kind == "times":
                    out.append(summary.times_table(res, arg or eid))
                elif kind == "landscape":  # parcomp's place against the Pareto front; arg: another result file
                    other = sources.get(arg) if arg else res
                    if arg:
                        out.append(f"`{arg}` ({compare.describe(other)}):\n")
                    out.append(codecs_landscape.table(other))
                else:
                    raise ReportError(f"{notes[eid].name}: unknown table kind {kind}")
                out.append("")
        for spec in meta.get("times", []):
            out.extend(times_table(root, spec))
        for spec in meta.get("kernels", []):
            out.append(kernels_line(root, spec))
        for fig in meta.get("figure", []):
            if not (root / fig).is_file():
                raise ReportError(f"{notes[eid].name}: figure {fig} does not exist")
            out.append(f"![{eid}]({fig})\n")
        out.append(resolve(prose, sources, source))
        for spec in meta.get("runs", []):  # same-host runs behind the prose, after it
            out.extend(runs_table(root, spec))
    for section in ("_gpus", "_python"):  # sections of their own, after the experiments'
        note = results / "notes" / f"{section}.md"
        if note.is_file():
            out.append(free_section(root, sources, note))
    return "\n".join(out).rstrip() + "\n"


def free_section(root: Path, sources, note: Path) -> str:
    """A note that is no experiment's: its prose, with the runs' and comparisons' tables where its
    markers say."""
    meta, prose = front_matter(note.read_text())
    # The tables go where the prose says `<!-- tables:compare -->` and `<!-- tables:runs -->` (else after it).
    tables: dict[str, list[str]] = {"compare": [], "runs": []}
    for spec in meta.get("runs", []):
        tables["runs"].extend(runs_table(root, spec))
    for spec in meta.get("compare", []):
        base, other, pattern = spec.split(maxsplit=2)
        a, b = sources.get(base), sources.get(other)
        lines, _ = compare.compare(a, b, re.compile(pattern))
        tables["compare"].append(f"`{base}` ({compare.describe(a)}) against `{other}` ({compare.describe(b)}), "
                                 f"benchmarks matching `{pattern}`:\n")
        tables["compare"].extend(lines)
        tables["compare"].append("")
    text = resolve(prose, sources, None)
    for kind, lines in tables.items():
        marker = "<!-- tables:" + kind + " -->"
        if marker in text:
            text = text.replace(marker, "\n".join(lines).rstrip())
        elif lines:
            text = text.rstrip() + "\n\n" + "\n".join(lines)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if RESULTS.md differs from what results/ gives")
    args = ap.parse_args(argv)
    try:
        text = build()
    except ReportError as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    target = ROOT / "RESULTS.md"
    if args.check:
        if not target.is_file() or target.read_text() != text:
            print("report: RESULTS.md is not what results/ gives: run python3 scripts/report.py", file=sys.stderr)
            return 1
        print("report: RESULTS.md is up to date")
        return 0
    target.write_text(text)
    print(f"report: wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
