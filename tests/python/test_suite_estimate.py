"""scripts/maint/suite_estimate.py: how long a whole-suite call's parts still to do will take (the H100's
calls of 26 Nov started a part whose 12 slowest rows of 68 were estimated by their count at 108 s,
and stopped it at the deadline after 173 s; another, estimated at the H200's 48 s, after 54 s)."""
import io
import json
import os
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "maint"))
import suite_estimate as se  # noqa: E402


def part_json(rows: dict[str, float], unit="ms", iterations=1) -> str:
    """A part's JSON as parcomp-bench writes it: each row's repetitions, then its aggregates."""
    bench = []
    for name, seconds in rows.items():
        for _ in range(2):  # two repetitions of half the time each
            bench.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": iterations,
                          "real_time": seconds / 2 / iterations / se.UNITS[unit], "time_unit": unit})
        bench.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
                      "real_time": 1e12, "time_unit": unit})
    return json.dumps({"context": {}, "benchmarks": bench})


def archive(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w:xz") as t:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


SLOW, FAST = {"u/slow/a": 100.0, "u/slow/b": 80.0}, {f"u/fast/{i}": 1.0 for i in range(10)}
NAMES = list(SLOW) + list(FAST)


def other_gpu(tmp_path, more=None) -> se.Parts:
    """Another GPU that ran the part in full in two calls (200 s: 190 timed, 10 not)."""
    files = {"u@d.json": part_json(SLOW), "u@d.2.json": part_json(FAST, unit="us", iterations=7), "u@d.seconds": "200\n"}
    files.update(more or {})
    return se.Parts.from_archive(archive(tmp_path / "parts.tar.xz", files))


def runner_need(seconds: dict, key: str, names: list, todo: list) -> float:
    """What the runner makes of the estimate: the unit's seconds times the share of its rows it runs."""
    return seconds[key] * len(todo) / len(names)


def test_the_rows_left_are_estimated_by_their_own_times_not_their_count(tmp_path):
    other = other_gpu(tmp_path)
    assert other.rows["u@d"]["u/slow/a"] == pytest.approx(100) and other.rows["u@d"]["u/fast/3"] == pytest.approx(1)
    gpus = {"other": other, "mine": se.Parts()}
    slow = se.estimate([("u@d", NAMES, list(SLOW))], "mine", gpus, {})
    # 180 s timed plus two of the twelve rows' even share of the 10 s untimed
    assert runner_need(slow, "u@d", NAMES, list(SLOW)) == pytest.approx(180 + 10 * 2 / 12)
    fast = se.estimate([("u@d", NAMES, list(FAST))], "mine", gpus, {})
    assert runner_need(fast, "u@d", NAMES, list(FAST)) == pytest.approx(10 + 10 * 10 / 12)
    whole = se.estimate([("u@d", NAMES, NAMES)], "mine", gpus, {})
    assert whole["u@d"] == pytest.approx(200)


def test_without_row_times_the_share_is_by_count(tmp_path):
    gpus = {"other": se.Parts.from_archive(archive(tmp_path / "p.tar.xz", {"u@d.seconds": "120\n"}))}
    e = se.estimate([("u@d", NAMES, NAMES[:3])], "mine", gpus, {})
    assert runner_need(e, "u@d", NAMES, NAMES[:3]) == pytest.approx(120 * 3 / 12)
    rough = {"unit_seconds": {"v@d": 60}, "experiment_seconds": {"w": 30}}
    e = se.estimate([("v@d", ["v/1", "v/2"], ["v/2"]), ("w", ["w/1"], ["w/1"]), ("x", ["x/1"], ["x/1"])], "mine", {}, rough)
    assert e == {"v@d": 60, "w": 30}, "no estimate at all for x: the runner falls back on its own"


def test_a_slower_gpu_is_estimated_slower_and_a_faster_one_not_faster(tmp_path):
    other, mine = se.Parts(), se.Parts()
    other.seconds = {f"p{i}": 100.0 for i in range(10)} | {"tiny": 1.0, "left": 50.0}
    mine.seconds = {f"p{i}": 100.0 + 2 * i for i in range(10)} | {"tiny": 9.0}
    assert se.slowdown(mine, other) == pytest.approx(1.16), "the 90th percentile; parts under 5 s there not counted"
    e = se.estimate([("left", ["l/1"], ["l/1"])], "mine", {"other": other, "mine": mine}, {})
    assert e["left"] == pytest.approx(50 * 1.16)
    faster = se.Parts()
    faster.seconds = {f"p{i}": 80.0 for i in range(10)}
    assert se.slowdown(faster, other) == 1.0
    few = se.Parts()
    few.seconds = {"p0": 300.0, "p1": 300.0}
    assert se.slowdown(few, other) == 1.0, "two parts in common say too little"


def test_a_part_stopped_at_a_deadline_is_estimated_longer(tmp_path):
    mine = se.Parts.from_folder(_folder(tmp_path / "mine", {"u@d.seconds": "0\n", "u@d.todo": "\n".join(SLOW),
                                                             "u@d.stopped": "150\n"}))
    assert "u@d" not in mine.seconds, "a part with rows to do is not done"
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", {"other": other_gpu(tmp_path), "mine": mine}, {})
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(1.5 * 150 + 30)


def test_a_stopped_part_with_rows_held_back_is_estimated_for_the_rows_it_runs(tmp_path):
    mine = se.Parts.from_folder(_folder(tmp_path / "mine", {"u@d.seconds": "0\n", "u@d.todo": "\n".join(FAST),
                                                             "u@d.stopped": "150\n"}))
    gpus = {"other": other_gpu(tmp_path), "mine": mine}
    e = se.estimate([("u@d", NAMES, list(FAST))], "mine", gpus, {}, {"u@d": list(SLOW)})
    # the fast rows' share of the rows the part had when it stopped, by their times on the other GPU
    floor = (1.5 * 150 + 30) * (10 + 10 * 10 / 12) / 200
    assert runner_need(e, "u@d", NAMES, list(FAST)) == pytest.approx(floor)
    by_count = se.Parts.from_folder(_folder(tmp_path / "count", {"v@d.seconds": "0\n", "v@d.todo": "v/1\nv/2\nv/3\nv/4\n", "v@d.stopped": "100\n"}))
    e = se.estimate([("v@d", ["v/1", "v/2", "v/3", "v/4"], ["v/1"])], "mine", {"mine": by_count}, {}, {"v@d": ["v/2", "v/3", "v/4"]})
    assert runner_need(e, "v@d", ["v/1", "v/2", "v/3", "v/4"], ["v/1"]) == pytest.approx((1.5 * 100 + 30) / 4)
    e = se.estimate([("v@d", ["v/1", "v/2", "v/3", "v/4"], ["v/1"])], "mine", {"mine": by_count}, {})
    assert runner_need(e, "v@d", ["v/1", "v/2", "v/3", "v/4"], ["v/1"]) == pytest.approx(1.5 * 100 + 30), "nothing held"


def test_a_stopped_part_is_estimated_less_the_rows_done_since(tmp_path):
    """A part stopped at 375 s by its two slowest rows, its twelve others done in a later call: the
    two were estimated at 1.5 x 375 + 30 s, past any call's deadline, and never started again."""
    folder = _folder(tmp_path / "mine", {"u@d.seconds": "0\n", "u@d.todo": "\n".join(SLOW), "u@d.stopped": "150\n",
                                         "u@d.json": part_json(FAST), "u@d.2.json": part_json({"u/x": 5.0})})
    os.utime(folder / "u@d.json", (1000, 1000))  # done before the stop: not counted
    os.utime(folder / "u@d.stopped", (2000, 2000))
    os.utime(folder / "u@d.2.json", (3000, 3000))
    mine = se.Parts.from_folder(folder)
    assert mine.done_since == {"u@d": pytest.approx(5.0)}
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", {"mine": mine}, {})
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(1.5 * (150 - 5) + 30)
    packed = tmp_path / "parts.tar.xz"
    with tarfile.open(packed, "w:xz") as t:
        for f in sorted(folder.iterdir()):
            t.add(f, arcname="./" + f.name)
    assert se.Parts.from_archive(packed).done_since == {"u@d": pytest.approx(5.0)}, "the archive's times as the folder's"


def test_without_row_times_of_its_own_a_part_is_shared_by_another_runs(tmp_path):
    """Rows of one part differ by far (zstd -19 against nvCOMP's LZ4): another pinned commit's
    times of the same rows share the part better than their count."""
    gpus = {"mine": se.Parts.from_folder(_folder(tmp_path / "m", {"u@d.seconds": "0\n", "u@d.todo": "\n".join(NAMES)}))}
    rough = {"unit_seconds": {"u@d": 200}}
    earlier = {"u@d": {**SLOW, **FAST}}
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", gpus, rough, None, earlier)
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(180 + 10 * 2 / 12), "the untimed rest shared evenly"
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", gpus, rough)
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(200 * 2 / 12), "by count without them"
    partial = {"u@d": dict(SLOW)}  # the earlier run had other rows: by count
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", gpus, rough, None, partial)
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(200 * 2 / 12)


def test_done_parts_and_a_cut_file_give_no_estimate(tmp_path):
    parts = se.Parts.from_folder(_folder(tmp_path / "f", {"u@d.seconds": "5\n", "u@d.json": '{"benchmarks": [',
                                                          "u@d.2.json": part_json({"u/x": 2.0})}))
    assert parts.seconds == {"u@d": 5.0} and parts.rows == {"u@d": {"u/x": pytest.approx(2.0)}}
    assert se.estimate([("u@d", ["u/x"], [])], "mine", {"mine": parts}, {}) == {}


def _folder(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def test_a_stop_that_names_its_rows_gives_its_floor_to_those_rows(tmp_path):
    """tool.load's four parcomp.fast rows stopped at 259 s while its four lbzip2 rows were held: the
    floor is theirs, whole when a call runs them again alone, and nothing of it for the others."""
    files = {"u@d.seconds": "0\n", "u@d.todo": "\n".join(NAMES), "u@d.stopped": "150\n", "u@d.stopped-rows": "\n".join(FAST)}
    mine = se.Parts.from_folder(_folder(tmp_path / "mine", files))
    assert mine.stopped_rows == {"u@d": list(FAST)}
    gpus = {"other": other_gpu(tmp_path), "mine": mine}
    e = se.estimate([("u@d", NAMES, list(FAST))], "mine", gpus, {}, {"u@d": list(SLOW)})
    assert runner_need(e, "u@d", NAMES, list(FAST)) == pytest.approx(1.5 * 150 + 30)
    e = se.estimate([("u@d", NAMES, list(SLOW))], "mine", gpus, {}, {"u@d": list(FAST)})
    assert runner_need(e, "u@d", NAMES, list(SLOW)) == pytest.approx(200 * (180 + 10 * 2 / 12) / 200), "the slow rows by their own times"
    e = se.estimate([("u@d", NAMES, list(FAST)[:5])], "mine", gpus, {}, {"u@d": list(SLOW) + list(FAST)[5:]})
    assert runner_need(e, "u@d", NAMES, list(FAST)[:5]) == pytest.approx((1.5 * 150 + 30) / 2), "half of the rows it was running"
    packed = tmp_path / "parts.tar.xz"
    archive(packed, files)
    assert se.Parts.from_archive(packed).stopped_rows == {"u@d": list(FAST)}
