"""tests/fuzz/run.sh fails on a crash: a target that crashes on purpose makes it exit 1 and
leave its crash file; a target that does not is the control, exit 0. The old script piped the
fuzzer through `grep ... || true` and exited 0 on both."""

import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(shutil.which("clang++") is None,
                                reason="the fuzz targets build with clang++ (apt-get install clang)")


def fuzz(tmp_path, target):
    env = dict(os.environ, TACK_FUZZ_OUT=str(tmp_path))
    return subprocess.run(["bash", str(HERE / "run.sh"), "3", str(HERE / "selftest" / target)],
                          capture_output=True, text=True, timeout=300, env=env)


def test_a_crashing_target_fails_the_script(tmp_path):
    r = fuzz(tmp_path, "crash_fuzz.cpp")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "crash_fuzz: FAILED" in r.stdout and "1 target(s) failed" in r.stdout
    assert [p.name[:len("crash_fuzz-crash-")] for p in (tmp_path / "crashes").iterdir()] == \
        ["crash_fuzz-crash-"]


def test_a_target_that_does_not_crash_passes(tmp_path):
    r = fuzz(tmp_path, "clean_fuzz.cpp")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no crash" in r.stdout and list((tmp_path / "crashes").iterdir()) == []
