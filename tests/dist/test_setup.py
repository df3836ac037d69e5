"""README's two set-up commands, as a fresh machine meets them.

Each goes through make.sh, which installs make with apt-get where the machine has none (a
minimal Debian 12 has none) and then runs make from the repository's top directory, wherever it
is called from; CI calls exactly the test command. apt-get and make are stand-ins here that
record how they were called: the real ones would install packages and build.
"""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent.parent


def readme_commands():
    text = (REPO / "README.md").read_text()
    block = re.search(r"## Set up\n.*?```\n(.*?)```", text, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_has_two_commands_through_make_sh_and_ci_runs_the_test_one():
    commands = readme_commands()
    assert commands == ["./make.sh run", "./make.sh test"]
    ci = [l for l in (REPO / ".ci/run").read_text().splitlines() if l and not l.startswith("#")]
    assert ci[-1] == commands[1]
    assert os.access(REPO / "make.sh", os.X_OK)


@pytest.fixture
def machine(tmp_path):
    """A PATH with a shell and a recording apt-get, and no make until apt-get installs one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    (bin_dir / "sh").symlink_to(shutil.which("sh"))
    stand_in = ('#!{sh}\necho "${{0##*/}} $* [$(pwd)] [$DEBIAN_FRONTEND]" >> {log}\n'
                .format(sh=shutil.which("sh"), log=log))
    make = tmp_path / "make"  # what apt-get installs
    make.write_text(stand_in + "exit 7\n")  # its status is make.sh's
    make.chmod(0o755)
    apt = stand_in + 'case "$*" in *install*make*) {cp} {make} {bin}/make;; esac\n'.format(
        cp=shutil.which("cp"), make=make, bin=bin_dir)
    (bin_dir / "apt-get").write_text(apt)
    (bin_dir / "apt-get").chmod(0o755)
    env = {"PATH": str(bin_dir)}
    return bin_dir, log, env


def calls(log):
    return log.read_text().splitlines() if log.exists() else []


def test_without_make_it_installs_make_first_then_runs_it_from_the_top(machine, tmp_path):
    bin_dir, log, env = machine
    # Called from elsewhere, as a path: make runs in the repository's top directory.
    r = subprocess.run(["sh", str(REPO / "make.sh"), "run"], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 7, r.stderr
    assert "installing: make" in r.stdout
    assert calls(log) == [
        f"apt-get update -qq [{REPO}] []",
        f"apt-get install -y -qq make [{REPO}] [noninteractive]",
        f"make run [{REPO}] []",
    ]


def test_with_make_it_only_runs_make(machine):
    bin_dir, log, env = machine
    subprocess.run(["sh", str(REPO / "make.sh"), "--version"], cwd=REPO, env=env, check=False)
    log.unlink()  # make is there now
    r = subprocess.run(["./make.sh", "test"], cwd=REPO, env=env, capture_output=True, text=True)
    assert r.returncode == 7 and "installing" not in r.stdout
    assert calls(log) == [f"make test [{REPO}] []"]


def test_a_failed_install_stops_before_make(machine, tmp_path):
    bin_dir, log, env = machine
    (bin_dir / "apt-get").write_text("#!{}\necho 'E: not root' >&2\nexit 100\n".format(
        shutil.which("sh")))
    r = subprocess.run(["sh", str(REPO / "make.sh"), "run"], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 100 and "not root" in r.stderr
    assert not (bin_dir / "make").exists() and calls(log) == []
