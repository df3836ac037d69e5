"""No tool asks the processor what it offers at start-up.

GCC's __builtin_cpu_supports and target_clones link libgcc's probe, which runs before main in
every process: a dozen cpuid instructions, each a trap to the hypervisor in a virtual machine
(6-7 us apiece measured on a cloud VM; about 70 us of every start). glibc has already asked
and keeps the answer (text/cpu.h). The built binaries keep their symbols, so the probe shows
by name.
"""

import subprocess

import pytest

import tack


def symbols(path) -> set[str]:
    r = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return {line.split()[-1] for line in r.stdout.splitlines() if line.strip()}


@pytest.mark.parametrize("name", tack.expected_tools() + ["tack-mcp", "tack"])
def test_no_cpu_probe_at_start(name):
    found = symbols(tack.BIN / name)
    assert found, name  # symbols kept: an empty list would make the check below vacuous
    assert "__cpu_indicator_init" not in found, name


def test_the_run_fixture_has_no_probe_either():
    assert "__cpu_indicator_init" not in symbols(tack.RUN_FIXTURE)
