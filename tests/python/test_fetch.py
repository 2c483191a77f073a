"""datasets/fetch.py: mirror, download (file:// URL), verification, and clear failures."""
import bz2
import hashlib
import io
import json
import lzma
import tarfile
from pathlib import Path

import pytest

import fetch

ROOT = Path(__file__).resolve().parents[2]


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


@pytest.fixture
def corpus(tmp_path):
    """A mirror with an xz file, a bz2 file and a tar.gz of two files, and its manifest."""
    mirror = tmp_path / "mirror"
    (mirror / "sub").mkdir(parents=True)
    one, two, a, b = b"one " * 1000, b"two" * 333, b"alpha\n", b"beta\n" * 7
    (mirror / "one.xz").write_bytes(lzma.compress(one))
    (mirror / "sub" / "two.bz2").write_bytes(bz2.compress(two))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in (("a.txt", a), ("b.txt", b)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    (mirror / "ab.tar.gz").write_bytes(buf.getvalue())
    manifest = {"schema": 1, "sources": [
        {"id": "one", "mirror": [{"file": "one.xz", "format": "xz", "sha256": sha((mirror / "one.xz").read_bytes())}],
         "download": {"url": (mirror / "one.xz").as_uri(), "format": "xz"},
         "files": [{"name": "one", "size": len(one), "sha256": sha(one)}]},
        {"id": "sub/two", "mirror": [{"file": "sub/two.bz2", "format": "bz2"}],
         "files": [{"name": "sub/two", "size": len(two), "sha256": sha(two)}]},
        {"id": "ab", "mirror": [{"file": "ab.tar.gz", "format": "tar.gz"}],
         "files": [{"name": "ab/a.txt", "member": "a.txt", "size": len(a), "sha256": sha(a)},
                   {"name": "ab/b.txt", "member": "b.txt", "size": len(b), "sha256": sha(b)}]},
    ]}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    return {"mirror": mirror, "manifest": path, "cache": tmp_path / "cache", "data": {"one": one, "sub/two": two,
                                                                                        "ab/a.txt": a, "ab/b.txt": b}}


def run(corpus, *names, mirror=True):
    args = [*names, "--manifest", str(corpus["manifest"]), "--cache", str(corpus["cache"])]
    if mirror:
        args += ["--mirror", str(corpus["mirror"])]
    return fetch.main(args)


def test_fetch_all_from_mirror(corpus):
    assert run(corpus) == 0
    for name, data in corpus["data"].items():
        assert (corpus["cache"] / name).read_bytes() == data
    assert run(corpus) == 0  # cached: verified again, not refetched


def test_fetch_by_file_name(corpus):
    assert run(corpus, "ab/b.txt") == 0
    assert (corpus["cache"] / "ab/b.txt").exists()
    assert not (corpus["cache"] / "one").exists()


def test_download_when_no_mirror(corpus, capsys):
    assert run(corpus, "one", mirror=False) == 0
    assert (corpus["cache"] / "one").read_bytes() == corpus["data"]["one"]
    assert "downloading file://" in capsys.readouterr().err


def test_missing_says_how_to_get_it(corpus, capsys):
    assert run(corpus, "sub/two", mirror=False) == 1
    err = capsys.readouterr().err
    assert "no mirror file found and no download URL" in err


def test_corrupt_mirror_is_an_error(corpus, capsys):
    p = corpus["mirror"] / "one.xz"
    p.write_bytes(p.read_bytes()[:-8] + b"\0" * 8)
    assert run(corpus, "one") == 1
    assert "corrupt" in capsys.readouterr().err


def test_wrong_checksum_is_never_accepted(corpus, capsys):
    doc = json.loads(corpus["manifest"].read_text())
    doc["sources"][1]["files"][0]["sha256"] = "0" * 64
    corpus["manifest"].write_text(json.dumps(doc))
    assert run(corpus, "sub/two") == 1
    assert "is corrupt" in capsys.readouterr().err


def test_corrupt_cache_file_is_fetched_again(corpus):
    assert run(corpus, "one") == 0
    (corpus["cache"] / "one").write_bytes(b"garbage")
    assert run(corpus, "one") == 0
    assert (corpus["cache"] / "one").read_bytes() == corpus["data"]["one"]


def test_unknown_name(corpus, capsys):
    assert run(corpus, "nope") == 2
    assert "unknown dataset 'nope'" in capsys.readouterr().err


def test_project_manifest_is_consistent():
    doc = json.loads((ROOT / "datasets" / "manifest.json").read_text())
    names = [f["name"] for s in doc["sources"] for f in s["files"]]
    assert len(names) == len(set(names))
    for s in doc["sources"]:
        assert s.get("mirror") or s.get("download"), s["id"]
        for f in s["files"]:
            assert len(f["sha256"]) == 64 and f["size"] > 0
    assert "linux-2.6.11.1.tar" in names and "enwik8" in names


# ---- failure paths, with local files only -----------------------------------------------------

def without_mirror_entries(corpus, source_index):
    doc = json.loads(corpus["manifest"].read_text())
    doc["sources"][source_index]["mirror"] = []
    corpus["manifest"].write_text(json.dumps(doc))
    return doc


def test_download_error_names_the_url_and_the_mirror_files(corpus, capsys):
    doc = json.loads(corpus["manifest"].read_text())
    doc["sources"][0]["download"]["url"] = (corpus["mirror"] / "absent.xz").as_uri()
    corpus["manifest"].write_text(json.dumps(doc))
    assert run(corpus, "one", mirror=False) == 1
    err = capsys.readouterr().err
    assert "cannot download file://" in err and "absent.xz" in err
    assert "one.xz" in err and "--mirror DIR" in err, "the error says which mirror file would do"
    assert not (corpus["cache"] / "one").exists()


def test_downloaded_file_with_the_wrong_sha256_is_deleted(corpus, capsys):
    doc = json.loads(corpus["manifest"].read_text())
    doc["sources"][0]["download"]["sha256"] = "0" * 64
    corpus["manifest"].write_text(json.dumps(doc))
    assert run(corpus, "one", mirror=False) == 1
    err = capsys.readouterr().err
    assert "downloaded with sha256" in err and "expected " + "0" * 64 in err
    assert not (corpus["cache"] / "downloads" / "one.xz").exists(), "a bad download must not stay in the cache"
    assert not (corpus["cache"] / "one").exists()


def test_damaged_archive_is_an_error_and_leaves_no_partial_file(corpus, capsys):
    p = corpus["mirror"] / "sub" / "two.bz2"  # no mirror sha256: the decompressor finds the damage
    p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    assert run(corpus, "sub/two") == 1
    assert "the archive is damaged" in capsys.readouterr().err
    assert not list(corpus["cache"].rglob("*.part")), "a partial file was left behind"
    assert not (corpus["cache"] / "sub" / "two").exists()


def test_tar_without_the_member_is_an_error(corpus, capsys):
    doc = json.loads(corpus["manifest"].read_text())
    doc["sources"][2]["files"][1]["member"] = "c.txt"
    corpus["manifest"].write_text(json.dumps(doc))
    assert run(corpus, "ab") == 1
    assert "has no member for ab/b.txt" in capsys.readouterr().err


def zip_corpus(corpus, members):
    import zipfile
    z = corpus["mirror"] / "z.zip"
    with zipfile.ZipFile(z, "w") as out:
        for name, data in members.items():
            out.writestr(name, data)
    doc = json.loads(corpus["manifest"].read_text())
    data = b"zipped\n" * 10
    doc["sources"].append({"id": "z", "mirror": [{"file": "z.zip", "format": "zip"}],
                           "files": [{"name": "z/x.txt", "member": "x.txt", "size": len(data), "sha256": sha(data)}]})
    corpus["manifest"].write_text(json.dumps(doc))
    return data


def test_zip_member_is_extracted(corpus):
    data = zip_corpus(corpus, {"x.txt": b"zipped\n" * 10})
    assert run(corpus, "z") == 0
    assert (corpus["cache"] / "z" / "x.txt").read_bytes() == data


def test_zip_without_the_member_is_an_error(corpus, capsys):
    zip_corpus(corpus, {"y.txt": b"other"})
    assert run(corpus, "z") == 1
    assert "x.txt" in capsys.readouterr().err


def test_not_a_zip_is_an_error(corpus, capsys):
    zip_corpus(corpus, {"x.txt": b"zipped\n" * 10})
    (corpus["mirror"] / "z.zip").write_bytes(b"PK\x03\x04 but not a zip")
    assert run(corpus, "z") == 1
    assert "z.zip" in capsys.readouterr().err
