"""scripts/maint/suite-call.sh (one job of a whole-suite run from a pinned bundle) over a stand-in
bundle: a fake parcomp-bench beside the real run_experiments.py and merge_results.py. What runs
only on GPU machines otherwise: the bundle's commit and cleanliness checked, the parts kept on the
machine and returned as one archive, a later call on the same machine without the bundle finding
it and the parts there, a machine without them refused at once."""
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "maint" / "suite-call.sh"

FAKE = r'''#!/usr/bin/env python3
import json, os, re, sys
SHA, DIRTY = os.environ["FAKE_SHA"], os.environ.get("FAKE_DIRTY") == "1"
if "--parcomp_device_info" in sys.argv:
    print(json.dumps({"device": {"slug": "fake-gpu", "name": "Fake GPU"}, "build": {"git_sha": SHA, "git_dirty": DIRTY}}))
    sys.exit(0)
names = ["e.one/x/n=1/real_time", "e.two/y/d1/n=2/real_time", "e.two/y/d2/n=3/real_time"]
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
chosen = [n for n in names if re.search(args.get("--benchmark_filter", "."), n)]
if args.get("--benchmark_list_tests") == "true":
    print("\n".join(chosen))
    sys.exit(0)
with open(os.environ["FAKE_CALLS"], "a") as f:
    f.write(args["--benchmark_filter"] + "\n")
if os.environ.get("FAKE_SLEEP") and "e.one" in chosen[0]:
    import time
    time.sleep(float(os.environ["FAKE_SLEEP"]))
ctx = {"parcomp_git_sha": SHA, "parcomp_gpu": "Fake GPU", "parcomp_build_type": "Release",
       "parcomp": {"build": {"git_dirty": False, "git_sha": SHA}, "device": {"uuid": "GPU-1", "name": "Fake GPU"}},
       "date": "now"}
json.dump({"context": ctx, "benchmarks": [{"name": n, "run_name": n, "real_time": 1.0} for n in chosen]},
          open(args["--benchmark_out"], "w"))
'''

SHA = "0123456789abcdef0123456789abcdef01234567"
PEERS = ("lbzip2", "bzip2", "zstd", "pigz", "pbzip2")


@pytest.fixture
def bundle(tmp_path):
    """A folder with bench.tar.xz as suite-pack.sh makes it: bundle/ with the fake bench and the runner."""
    src = tmp_path / "src" / "bundle"
    src.mkdir(parents=True)
    (src / "parcomp-bench").write_text(FAKE)
    (src / "parcomp-bench").chmod(0o755)
    for script in ("run_experiments.py", "merge_results.py"):
        (src / script).write_text((ROOT / "scripts" / script).read_text())
    for peer in PEERS:  # the programs measured beside parcomp, as the bundle carries them
        (src / peer).write_text("#!/bin/sh\n")
        (src / peer).chmod(0o755)
    out = tmp_path / "carried"
    out.mkdir()
    with tarfile.open(out / "bench.tar.xz", "w:xz") as t:
        t.add(src, arcname="bundle")
    return out


def call(tmp_path, machine, *args, sha=SHA[:7], **env):
    out = tmp_path / f"out-{len(list(tmp_path.glob('out-*')))}"
    out.mkdir()
    e = {**os.environ, "OUT": str(out), "SUITE_TMP": str(machine), "FAKE_SHA": SHA, "FAKE_CALLS": str(tmp_path / "calls"),
         "SUITE_ESTIMATE": "/nonexistent", **env}
    r = subprocess.run(["bash", str(SCRIPT), "--sha", sha, "--split", "^e\\.two", *map(str, args)],
                       capture_output=True, text=True, env=e)
    return r, out


def part_names(out: Path) -> set[str]:
    with tarfile.open(out / "parts.tar") as t:
        return {Path(n).name for n in t.getnames() if n not in (".", "./")}


def test_a_call_runs_the_parts_and_returns_them_as_one_archive(tmp_path, bundle):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, out = call(tmp_path, machine, "--bundle", bundle)
    assert r.returncode == 0, r.stderr
    assert "unpacked the bundle" in r.stderr and "fake-gpu: 0 parts done in earlier calls" in r.stderr
    assert {"e.one.json", "e.one.seconds", "e.two@d1.json", "e.two@d2.json"} <= part_names(out)
    assert len(json.loads((out / "bench.json").read_text())["benchmarks"]) == 3
    assert json.loads((out / "device.json").read_text())["device"]["slug"] == "fake-gpu"
    # The next call on the same machine, without the bundle: it and the parts are there.
    r, out = call(tmp_path, machine)
    assert r.returncode == 0, r.stderr
    assert "3 parts done in earlier calls" in r.stderr
    assert (tmp_path / "calls").read_text().split() == ["^e\\.one/", "^e\\.two/[^/]+/d1/", "^e\\.two/[^/]+/d2/"], \
        "nothing ran twice"
    assert "e.one.json" in part_names(out)


def test_a_machine_without_the_bundle_stops_at_once(tmp_path):
    machine = tmp_path / "fresh"
    machine.mkdir()
    r, out = call(tmp_path, machine)
    assert r.returncode == 2 and "no bundle" in r.stderr and "carry --bundle" in r.stderr


@pytest.mark.parametrize("env, message", [({"FAKE_SHA": "fedcba9876543210fedcba9876543210fedcba98"}, "was built from"),
                                          ({"FAKE_DIRTY": "1"}, "dirty tree")])
def test_a_bundle_of_another_commit_or_a_dirty_tree_is_refused(tmp_path, bundle, env, message):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, _ = call(tmp_path, machine, "--bundle", bundle, **env)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert not (tmp_path / "calls").exists(), "no benchmark ran"


def test_held_rows_run_in_a_later_call_and_the_part_is_not_done_before(tmp_path, bundle):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, out = call(tmp_path, machine, "--bundle", bundle, "--hold", "d2|e\\.one")
    assert r.returncode == 3, r.stderr
    assert "e.one: 1 of 1 rows held" in r.stderr and "e.two@d2: 1 of 1 rows held" in r.stderr
    assert (tmp_path / "calls").read_text().split() == ["^e\\.two/[^/]+/d1/"]
    assert not (out / "bench.json").exists(), "no merged run while rows are held"
    with tarfile.open(out / "parts.tar") as t:
        todo = t.extractfile("./e.two@d2.todo").read().decode().split()
        names = {Path(n).name for n in t.getnames()}
    assert todo == ["e.two/y/d2/n=3/real_time"] and ".held.json" not in names
    r, out = call(tmp_path, machine)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "calls").read_text().split()[1:] == ["^e\\.one/", "^e\\.two/[^/]+/d2/"]
    assert len(json.loads((out / "bench.json").read_text())["benchmarks"]) == 3


def test_only_runs_its_rows_and_leaves_the_others_as_held(tmp_path, bundle):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, out = call(tmp_path, machine, "--bundle", bundle, "--only", "d2")
    assert r.returncode == 3, r.stderr
    assert "e.one: 1 of 1 rows held" in r.stderr and "e.two@d1: 1 of 1 rows held" in r.stderr
    assert (tmp_path / "calls").read_text().split() == ["^e\\.two/[^/]+/d2/"]
    r, out = call(tmp_path, machine)
    assert r.returncode == 0, r.stderr
    assert sorted((tmp_path / "calls").read_text().split()[1:]) == ["^e\\.one/", "^e\\.two/[^/]+/d1/"]
    assert len(json.loads((out / "bench.json").read_text())["benchmarks"]) == 3


def test_a_part_stopped_at_the_deadline_is_estimated_longer_next_time(tmp_path, bundle):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, out = call(tmp_path, machine, "--bundle", bundle, "--deadline", "2", FAKE_SLEEP="30", SUITE_ESTIMATE="")
    assert r.returncode == 3, r.stderr
    assert "e.one: stopped at the deadline after 2 s" in r.stderr
    with tarfile.open(out / "parts.tar") as t:
        assert float(t.extractfile("./e.one.stopped").read()) == 2
    r, out = call(tmp_path, machine, "--deadline", "20", SUITE_ESTIMATE="")
    assert json.loads((out / "estimate.json").read_text())["context"]["unit_seconds"]["e.one"] == 33
    assert "e.one: left for a later call" in r.stderr and "about 33 s" in r.stderr, r.stderr


def test_a_stop_names_the_rows_it_was_running_where_the_part_had_rows_to_do(tmp_path, bundle):
    """KEY.stopped-rows: the part's KEY.todo as the call ran it (held rows out), so that a later
    estimate gives the stop's floor to those rows; a stop of a whole part leaves no such file."""
    machine = tmp_path / "machine"
    parts = machine / f"parcomp-suite-{SHA[:7]}-parts"
    parts.mkdir(parents=True)
    (parts / "e.one.seconds").write_text("0\n")
    (parts / "e.one.todo").write_text("e.one/x/n=1/real_time\n")
    r, out = call(tmp_path, machine, "--bundle", bundle, "--deadline", "2", FAKE_SLEEP="30", SUITE_ESTIMATE="")
    assert r.returncode == 3, r.stderr
    with tarfile.open(out / "parts.tar") as t:
        assert t.extractfile("./e.one.stopped-rows").read().split() == [b"e.one/x/n=1/real_time"]
    (parts / "e.one.todo").unlink()
    r, out = call(tmp_path, machine, "--deadline", "4", FAKE_SLEEP="30", SUITE_ESTIMATE="/dev/null")
    assert "e.one: stopped at the deadline" in r.stderr, r.stderr
    with tarfile.open(out / "parts.tar") as t:
        assert float(t.extractfile("./e.one.stopped").read()) >= 3
        assert "./e.one.stopped-rows" not in t.getnames(), "the whole part was running"


def test_dropped_rows_never_run_and_the_merge_says_why(tmp_path, bundle):
    machine = tmp_path / "machine"
    machine.mkdir()
    r, _ = call(tmp_path, machine, "--bundle", bundle, "--drop", "d2")
    assert r.returncode == 2 and "--drop needs --why" in r.stderr
    r, out = call(tmp_path, machine, "--bundle", bundle, "--drop", "d2", "--why", "longer than a call")
    assert r.returncode == 0, r.stderr
    assert "e.two@d2: 1 of 1 rows dropped (longer than a call)" in r.stderr
    assert "d2" not in (tmp_path / "calls").read_text()
    parts = tmp_path / "parts"
    parts.mkdir()
    with tarfile.open(out / "parts.tar") as t:
        t.extractall(parts)
    assert json.loads((parts / "e.two@d2.dropped").read_text()) == {"e.two/y/d2/n=3/real_time": "longer than a call"}
    r, _ = call(tmp_path, machine)  # a later call without --drop: the row stays out
    assert r.returncode == 0 and "d2" not in (tmp_path / "calls").read_text()
    bench = machine / f"parcomp-suite-{SHA[:7]}" / "bundle" / "parcomp-bench"
    merged = tmp_path / "merged.json"
    m = subprocess.run(["python3", str(ROOT / "scripts" / "run_experiments.py"), str(bench), "--parts", str(parts), "--merge-only",
                        "--split", "^e\\.two", "--out", str(merged)], capture_output=True, text=True,
                       env={**os.environ, "FAKE_SHA": SHA, "FAKE_CALLS": str(tmp_path / "calls")})
    assert m.returncode == 0, m.stderr
    doc = json.loads(merged.read_text())
    assert doc["context"]["parcomp_dropped"] == {"e.two/y/d2/n=3/real_time": "longer than a call"}
    assert len(doc["benchmarks"]) == 2


def test_a_bundle_without_a_peer_program_is_refused(tmp_path, bundle):
    """A bundle packed where pigz was not installed ran the H200's tarball parts without their pigz
    rows (26 Nov): refused before any benchmark runs."""
    src = tmp_path / "src"
    (src / "bundle" / "pigz").unlink()
    with tarfile.open(bundle / "bench.tar.xz", "w:xz") as t:
        t.add(src / "bundle", arcname="bundle")
    machine = tmp_path / "machine"
    machine.mkdir()
    r, _ = call(tmp_path, machine, "--bundle", bundle)
    assert r.returncode == 2 and "the bundle lacks pigz" in r.stderr and "apt-get install pigz" in r.stderr, r.stderr
    assert not (tmp_path / "calls").exists(), "no benchmark ran"


def test_work_folders_of_finished_bench_processes_are_removed(tmp_path, bundle):
    """The bench's work folders (the 25-fold tarball: 5.2 GB each) of processes no longer running go;
    a running one's stays."""
    machine, scratch = tmp_path / "machine", tmp_path / "scratch"
    machine.mkdir()
    scratch.mkdir()
    gone = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    (scratch / f"parcomp-tool-{gone}").mkdir()
    (scratch / f"parcomp-tool-{gone}" / "linux-2.6.11.1.tar.x25").write_text("x")
    (scratch / f"parcomp-tool-{os.getpid()}").mkdir()
    (scratch / "parcomp-tool-notapid").mkdir()
    r, _ = call(tmp_path, machine, "--bundle", bundle, TMPDIR=str(scratch))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in scratch.iterdir()) == [f"parcomp-tool-{os.getpid()}", "parcomp-tool-notapid"]
