"""Readers opened without --root follow links (CONTRACT §5) and say so: where a path ran
through a symbolic link, the answer names where it led (peek's own tests cover peek)."""

import os

import pytest

import tack
from tack import run


@pytest.fixture
def linked(tmp_path):
    work = tmp_path / "work"
    (work / "notes").mkdir(parents=True)
    real = tmp_path / "elsewhere"
    real.mkdir()
    (real / "data.json").write_bytes(b'{"a":1}\n')
    (real / "log.txt").write_bytes(b"x\ny\nx\n")
    (work / "plain.txt").write_bytes(b"x\n")
    os.symlink(real, work / "linked")          # a directory on the path
    os.symlink(real / "log.txt", work / "log")  # the last component
    return work, real


def test_jsonq_names_the_target(linked):
    work, real = linked
    r = run("jsonq", "--pointer", "/a", "linked/data.json", cwd=work)
    assert r.exit == 0 and r.data["link"] == {"target": str(real / "data.json")}
    r = run("jsonq", "--pointer", "/a", "--root", str(work / "notes"), "../x", cwd=work)
    assert "link" not in (r.doc.get("data") or {})


def test_digest_record_names_the_target(linked):
    work, real = linked
    r = run("digest", "log", "plain.txt", cwd=work)
    recs = [x for x in r.json if x["type"] == "digest"]
    assert recs[0]["link"] == {"target": str(real / "log.txt")}
    assert "link" not in recs[1]


def test_tally_lists_the_linked_files(linked):
    work, real = linked
    r = run("tally", "plain.txt", "linked/log.txt", cwd=work)
    assert r.data["links"] == [{"path": "linked/log.txt", "target": str(real / "log.txt")}]
    r = run("tally", "plain.txt", cwd=work)
    assert "links" not in r.data


def test_with_root_a_link_is_refused_not_reported(linked):
    work, _ = linked
    r = run("tally", "--root", str(work), "log")
    assert r.rules == ["path.symlink"]
