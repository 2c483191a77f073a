"""results/ has one layout (docs/benchmarking.md, "Where results live"): under each GPU's folder, a
whole suite (suite-<commit>), figures, or a run named <date>-[<time>-]<commit>[-<what>]; and every
run folder is named by the report's notes, the docs, the changelog or a script, by its path or its
commit, so that none lies there without a reader knowing what it backs."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"^(suite-[0-9a-f]{7}|figures|\d{8}-(\d{6}-)?[0-9a-f]{7}(-[a-z0-9.-]+)?)$")
NOT_GPUS = {"notes", "compare", "cpu-analysis"}


def tracked() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


def run_folders(files: list[str]) -> set[str]:
    """results/<gpu>/<run> for every tracked file below such a folder."""
    out = set()
    for f in files:
        parts = f.split("/")
        if len(parts) >= 4 and parts[0] == "results" and parts[1] not in NOT_GPUS:
            out.add("/".join(parts[:3]))
    return out


def readers_text(files: list[str]) -> str:
    """What names result folders: everything tracked but the result folders themselves."""
    texts = []
    for f in files:
        if f.startswith("results/") and not (f.startswith("results/notes/") or f == "results/experiments.json"):
            continue
        if f.endswith((".md", ".py", ".sh", ".json", ".txt")) and (ROOT / f).is_file():
            texts.append((ROOT / f).read_text(errors="replace"))
    return "\n".join(texts)


def unexplained(folders: set[str], text: str) -> list[str]:
    bad = []
    for d in sorted(folders):
        name = d.split("/")[2]
        if name == "figures" or d in text:
            continue
        sha = re.search(r"-([0-9a-f]{7})(?=[-.]|$)", name)
        if sha is None or sha.group(1) not in text:
            bad.append(d)
    return bad


def test_every_result_folder_has_the_layouts_name():
    bad = [d for d in sorted(run_folders(tracked())) if not NAME.match(d.split("/")[2])]
    assert not bad, "result folders outside the layout:\n" + "\n".join(bad)


def test_every_result_folder_is_named_by_what_reads_it():
    files = tracked()
    bad = unexplained(run_folders(files), readers_text(files))
    assert not bad, "result folders that no note, doc, changelog or script names (by path or commit):\n" + "\n".join(bad)


def test_the_check_finds_a_folder_nobody_names():
    text = "see results/nvidia-h200/20261126-1234567-ab and commit 89abcde"
    folders = {"results/nvidia-h200/20261126-1234567-ab", "results/nvidia-h200/20261127-89abcde",
               "results/nvidia-h200/20261127-fedcba9-x2", "results/nvidia-h200/figures"}
    assert unexplained(folders, text) == ["results/nvidia-h200/20261127-fedcba9-x2"]
    assert not NAME.match("default-b0c8f61") and NAME.match("20261126-b0c8f61-default")
