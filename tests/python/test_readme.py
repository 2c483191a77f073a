"""The README's commands, as a user runs them on a machine without a GPU and without the datasets
(the CI machine): the first command (`scripts/reproduce.sh --quick`) end to end, and every other
command of a ```sh block either run here, checked in the mode it can run here (the benchmarks a
filter selects, the options a script parses), or named with the test that covers it. A command
added to the README without a way to check it fails `test_every_readme_command_has_a_check`."""
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PARCOMP_BUILD", ROOT / "build"))
BENCH = BUILD / "bench" / "parcomp-bench"
PARCOMP = BUILD / "codec" / "parcomp"
SUITE = ROOT / "results" / "nvidia-h200" / "suite-575289d" / "run.json.gz"  # a committed result file

needs_build = pytest.mark.skipif(not (BENCH.exists() and PARCOMP.exists()), reason=f"{BUILD} not built (set PARCOMP_BUILD)")


def readme_commands(text: str) -> list[tuple[int, str]]:
    """(line, command) for every command of the README's ```sh blocks: continuation lines joined,
    comments dropped."""
    out: list[tuple[int, str]] = []
    lines = text.splitlines()
    lang = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            lang = line[3:].strip() if lang is None else None
        elif lang == "sh":
            start, cmd = i, line
            while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            cmd = re.sub(r"\s+#\s.*$", "", cmd).strip()
            if cmd and not cmd.startswith("#"):
                out.append((start + 1, cmd))
        i += 1
    return out


# The README and the docs it links to: a command moved to docs/ stays checked.
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
COMMANDS = [(f"{p.relative_to(ROOT)}:{n}", c) for p in DOCS for n, c in readme_commands(p.read_text())]


# How each README command is checked here. kind:
#   "ci"      CI runs it as written (scripts/test.sh: configure, build, ctest, pytest)
#   "test"    the named test runs it (test file::function)
#   "options" a script for a GPU host or a long run: every option the command passes is one the
#             script parses (detail: the script)
#   "bench"   parcomp-bench with the command's arguments lists at least one benchmark (its GPU or
#             dataset rows are skipped here); detail: an NVTX range the command names, or None
#   "cli"     the parcomp program, run here in a scratch folder on stand-in files
#   "run"     run here as written, with committed files for the placeholders
#   "source"  the command is the one the program itself tells its user (detail: where)
HOW: list[tuple[str, str, str | None]] = [
    (r"^scripts/reproduce\.sh --fetch$", "options", "scripts/reproduce.sh"),
    (r"^scripts/reproduce\.sh$", "test", "test_readme.py::test_the_first_command_on_a_machine_without_gpu_or_datasets"),
    (r"^scripts/test\.sh$", "ci", None),
    (r"^bash scripts/maint/suite-call\.sh ", "options", "scripts/maint/suite-call.sh"),
    (r"^--drop ", "options", "scripts/maint/suite-call.sh"),
    (r"^cmake -S \. -B build -G Ninja( && cmake --build build)?$", "ci", None),
    (r"^cmake -S \. -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90$", "test", "test_readme.py::test_configure_for_one_architecture"),
    (r"^cmake --build build$", "ci", None),
    (r"^ctest --test-dir build$", "ci", None),
    (r"^(PARCOMP_\w+=\S+ )?build/bench/parcomp-bench ", "bench", None),
    (r"^python3 plots/\w+\.py ", "run", None),
    (r"^python3 datasets/fetch\.py --list$", "run", None),
    (r"^python3 datasets/fetch\.py .*--mirror ", "test", "test_fetch.py::test_fetch_by_file_name"),
    (r"^python3 datasets/fetch\.py all$", "test", "test_fetch.py::test_download_when_no_mirror"),
    (r"(^|\| )build/codec/parcomp ", "cli", None),
    (r"^python3 -m pip install nvidia-libnvcomp-cu13$", "source", "bench/codecs.cpp"),
    (r"^cmake --build build --target bundle$", "test", "test_readme.py::test_the_bundle_and_its_gpu_check"),
    (r"^build/bundle/gpu-check\.sh ", "test", "test_readme.py::test_the_bundle_and_its_gpu_check"),
    (r"^scripts/gpu-check\.sh ", "options", "scripts/gpu-check.sh"),
    (r"^scripts/compare ", "run", None),
    (r"^python3 scripts/python_bench\.py ", "test", "test_tools.py::test_python_bench_csv_read_and_dask"),
    (r"^scripts/profile\.sh ", "options", "scripts/profile.sh"),
    (r"^ncu .* build/bench/parcomp-bench ", "bench", "nvtx"),
    (r"^nsys profile .* build/bench/parcomp-bench ", "bench", None),
]


def how(cmd: str):
    found = [h for h in HOW if re.search(h[0], cmd)]
    return found


def ids(cmds):
    return [n.replace("/", "-") for n, _ in cmds]


@pytest.mark.parametrize("line,cmd", COMMANDS, ids=ids(COMMANDS))
def test_every_readme_command_has_a_check(line, cmd):
    found = how(cmd)
    assert found, f"{line}: no check for {cmd!r}: add one to HOW in {Path(__file__).name}"
    assert len(found) == 1, f"{line}: {cmd!r} matches {len(found)} entries of HOW"
    kind, detail = found[0][1], found[0][2]
    if kind == "test":
        file, func = detail.split("::")
        assert re.search(rf"^def {re.escape(func)}\(", (Path(__file__).parent / file).read_text(), re.M), detail


def options_of(cmd: str) -> list[str]:
    return sorted({t.split("=", 1)[0] for t in shlex.split(cmd) if re.match(r"^--[a-z]", t)})


def parsed_options(script: Path) -> set[str]:
    """The long options a shell script's argument loop takes (`--name)` or `--name|...)` cases)."""
    return set(re.findall(r"^\s*(?:-\w\|)?(--[a-z][a-z0-9-]*)(?:\|[^)]*)?\)", script.read_text(), re.M))


OPTIONS = [(n, c) for n, c in COMMANDS if how(c) and how(c)[0][1] == "options"]


@pytest.mark.parametrize("line,cmd", OPTIONS, ids=ids(OPTIONS))
def test_scripts_parse_the_options_the_readme_shows(line, cmd):
    script = ROOT / how(cmd)[0][2]
    unknown = [o for o in options_of(cmd) if o not in parsed_options(script)]
    assert not unknown, f"{line}: {script.name} does not take {unknown}"


BENCHES = [(n, c) for n, c in COMMANDS if how(c) and how(c)[0][1] == "bench"]


@needs_build
@pytest.mark.parametrize("line,cmd", BENCHES, ids=ids(BENCHES))
def test_bench_commands_select_benchmarks(line, cmd):
    words = shlex.split(cmd)
    env = dict(os.environ)
    while re.match(r"^[A-Z_]+=", words[0]):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    at = next(i for i, w in enumerate(words) if w.endswith("build/bench/parcomp-bench"))
    if how(cmd)[0][2] == "nvtx":
        # The NVTX range that Nsight Compute is told to include is one the code opens.
        rng = re.search(r'--nvtx-include "([^"]+)"', cmd).group(1).rstrip("/")
        domain, name = rng.split("@", 1)
        src = "\n".join(p.read_text(errors="replace") for d in ("kernels", "bench", "codec")
                        for p in (ROOT / d).rglob("*") if p.suffix in (".cu", ".cuh", ".cpp", ".hpp"))
        stem = name.split(":")[0]
        assert domain in src and stem in src, f"{line}: no NVTX range {rng!r} in the code"
    args = [a for a in words[at + 1:] if not a.startswith(("--benchmark_out", "--benchmark_repetitions"))
            and a != "--benchmark_list_tests"]
    r = subprocess.run([str(BENCH), *args, "--benchmark_list_tests=true"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split(), f"{line}: {cmd!r} selects no benchmark"


def stand_in(path: Path, size: int = 300_000):
    """A file of text-like bytes (a stand-in for the README's inputs)."""
    words = [b"parcomp", b"bzip2", b"block", b"GPU", b"\n", b"the", b"of", b"0123456789"]
    out = bytearray()
    x = 12345
    while len(out) < size:
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out += words[x % len(words)] + b" "
    path.write_bytes(bytes(out[:size]))


CLI = [(n, c) for n, c in COMMANDS if how(c) and how(c)[0][1] == "cli"]


@needs_build
@pytest.mark.parametrize("line,cmd", CLI, ids=ids(CLI))
def test_the_programs_commands_run(line, cmd, tmp_path):
    """Each parcomp command of the README in a scratch folder: its inputs made (a stand-in file, a
    folder, the compressed files its -d and -t read), the command run through the shell, exit 0."""
    cmd = cmd.replace("build/codec/parcomp", shlex.quote(str(PARCOMP)))
    cmd = re.sub(r"\bssh host '([^']*)'", r"sh -c '\1'", cmd)  # the remote end, run here
    inputs = [w for w in re.split(r"[\s|>]+", re.sub(r">\s*\S+", "", cmd)) if re.match(r"^[\w.-]+\.[\w.]+$|^FILE$|^dir$", w)]
    for name in inputs:
        p = tmp_path / name
        if name == "dir":
            p.mkdir()
            stand_in(p / "a.txt")
            stand_in(p / "b.txt", 1000)
        elif name.endswith((".pcmp", ".bz2")):
            plain = tmp_path / ("made-" + name.rsplit(".", 1)[0])
            if name.rsplit(".", 1)[0].endswith(".tar"):  # a tarball of a folder named as the archive
                src = tmp_path / "made" / name.split(".tar")[0]
                src.mkdir(parents=True)
                stand_in(src / "a.txt")
                subprocess.run(["tar", "cf", str(plain), "-C", str(src.parent), src.name], check=True)
            else:
                stand_in(plain)
            fmt = ["-9"] if name.endswith(".bz2") else ["--format", "parcomp"]
            with open(p, "wb") as f:
                subprocess.run([str(PARCOMP), *fmt, "--cpu", "-c", str(plain)], stdout=f, check=True)
        elif not p.exists():
            stand_in(p)
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=tmp_path, capture_output=True, timeout=300)
    assert r.returncode == 0, f"{line}: {cmd}\n{r.stderr.decode(errors='replace')}"
    if "| tar xf -" in cmd:
        assert (tmp_path / "dir" / "a.txt").exists()


RUNS = [(n, c) for n, c in COMMANDS if how(c) and how(c)[0][1] == "run"]


@pytest.mark.parametrize("line,cmd", RUNS, ids=ids(RUNS))
def test_the_commands_that_run_as_written(line, cmd, tmp_path):
    """Scripts run from the repository's root; a placeholder result file is a committed one, and
    what they write goes to a scratch folder."""
    cmd = re.sub(r"\b(RESULT|tool|land)\.json\b", shlex.quote(str(SUITE)), cmd)
    cmd = re.sub(r"(--out|--plot|--markdown) plots/out", rf"\1 {tmp_path}", cmd)
    r = subprocess.run(["bash", "-c", cmd], cwd=ROOT, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "MPLBACKEND": "Agg"})
    assert r.returncode == 0, f"{line}: {cmd}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    if "plots/" in cmd and "--out" in cmd:
        assert list(tmp_path.glob("*.png")), "no plot written"


def test_the_pip_command_is_the_one_the_program_tells():
    cmds = [c for _, c in COMMANDS if how(c) and how(c)[0][1] == "source"]
    for c in cmds:
        assert c in (ROOT / how(c)[0][2]).read_text(), c


@needs_build
def test_configure_for_one_architecture(tmp_path):
    """The README's faster configure (H100/H200 only), into a scratch build folder."""
    r = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path / "b"), "-G", "Ninja", "-DCMAKE_CUDA_ARCHITECTURES=90"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "CUDA architectures 90" in r.stdout


def test_the_library_alone_needs_none_of_the_bench_and_test_dependencies(tmp_path):
    """What `pip install ./python` configures (PARCOMP_LIBRARY_ONLY): CMake succeeds with the
    benchmark's, tests' and datasets' packages made unfindable (libbz2 is the library's own), and
    the library is a target."""
    off = [f"-DCMAKE_DISABLE_FIND_PACKAGE_{p}=ON" for p in ("benchmark", "GTest", "fmt", "nlohmann_json", "PkgConfig")]
    b = tmp_path / "b"
    r = subprocess.run(["cmake", "-S", str(ROOT), "-B", str(b), "-G", "Ninja", "-DPARCOMP_LIBRARY_ONLY=ON", "-DPARCOMP_PYTHON=OFF", *off],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    targets = subprocess.run(["ninja", "-C", str(b), "-t", "targets", "all"], capture_output=True, text=True).stdout
    assert "libparcomp.so" in targets and "parcomp-bench" not in targets and "parcomp-tests-cpu" not in targets


@needs_build
def test_the_bundle_and_its_gpu_check(tmp_path):
    """`cmake --build build --target bundle`, then the bundle's gpu-check.sh, which on a machine
    without a GPU says so and exits non-zero (a GPU check never passes vacuously)."""
    r = subprocess.run(["cmake", "--build", str(BUILD), "--target", "bundle"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    check = BUILD / "bundle" / "gpu-check.sh"
    assert check.exists()
    if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0:
        pytest.skip("a GPU is here: scripts/gpu-check.sh runs on it (a GPU host's routine)")
    r = subprocess.run(["bash", str(check), "--out", str(tmp_path / "out"), "--filter", "parle"], capture_output=True, text=True, timeout=600)
    assert r.returncode != 0 and re.search(r"no CUDA|GPU", r.stdout + r.stderr), r.stdout[-2000:] + r.stderr[-2000:]


@needs_build
def test_the_first_command_on_a_machine_without_gpu_or_datasets(tmp_path):
    """`scripts/reproduce.sh --quick` as a new user runs it: no datasets, here no GPU. It exits 0,
    writes one result file holding every benchmark it listed (the datasets' rows skipped, each with
    why and how to get the data), and makes the plots from what ran."""
    results, plots = tmp_path / "results", tmp_path / "plots"
    env = {**os.environ, "PARCOMP_DATA": str(tmp_path / "no-datasets-here"), "PARCOMP_BUILD": str(BUILD), "MPLBACKEND": "Agg"}
    r = subprocess.run(["bash", str(ROOT / "scripts" / "reproduce.sh"), "--quick", "--results", str(results), "--plots", str(plots)],
                       capture_output=True, text=True, env=env, timeout=3000)
    log = r.stdout[-3000:] + r.stderr[-6000:]
    assert r.returncode == 0, log
    files = list(results.glob("*/*/run.json"))
    assert len(files) == 1, log
    doc = json.loads(files[0].read_text())
    rows = {b.get("run_name", b["name"]) for b in doc["benchmarks"]}
    # Every benchmark of the run is in the file: the ones it could not run as skipped rows.
    gpu = doc["context"]["parcomp"]["device"]
    listed = subprocess.run([str(BENCH), "--benchmark_list_tests=true", "--parcomp_max_log2=20"] +
                            ([] if gpu else ["--benchmark_filter=(.).*cpu\\.|cpu\\..*(.)"]),
                            capture_output=True, text=True, check=True).stdout.split()
    missing = [n for n in listed if n not in rows]
    assert not missing, f"{len(missing)} rows dropped, e.g. {missing[:3]}"
    dataset_rows = [b for b in doc["benchmarks"] if "is not at" in b.get("error_message", "")]
    assert dataset_rows, "the datasets' rows are in the file, as skipped"
    for b in dataset_rows:
        assert b["error_message"].startswith("skipped: dataset '") and "datasets/fetch.py" in b["error_message"], b
    skipped = doc["context"]["parcomp_skipped"]
    assert any(k.startswith("dataset ") for k in skipped)
    assert sum(e["rows"] for k, e in skipped.items() if k.startswith("dataset ")) == len(dataset_rows)
    assert re.search(r"\d+ of \d+ rows skipped for what this machine lacks", r.stderr), log
    assert "error:" not in r.stderr, log
    assert "Release build" in doc["context"].get("parcomp_note", ""), "what the library's DEBUG warning means"
    assert len(list(plots.glob("*.png"))) >= 5, log
