"""Shared fixtures: the built binaries (TACK_BIN) and a fresh fixture tree per test."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import tack  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: generates large files (M9)")


def pytest_report_header(config):
    return f"tack binaries: {tack.BIN} (expected tools: {', '.join(tack.expected_tools())})"


@pytest.fixture
def tree(tmp_path):
    """tmp_path/root is the fixture tree; tmp_path/outside and tmp_path/rootevil its siblings."""
    return tack.make_tree(tmp_path / "root")


@pytest.fixture
def peek_bin():
    path = tack.BIN / "peek"
    assert path.exists(), f"peek is not built at {path}"
    return str(path)


def pytest_terminal_summary(terminalreporter):
    """What the whole run reached: rules per tool, and how many retry repairs were executed."""
    if not tack.REACHED and not tack.RETRIES:
        return
    tr = terminalreporter
    tr.section("tack: rules reached, retries executed")
    for tool in sorted(tack.REACHED):
        try:
            declared = set(tack.declared_rules(tool))
        except Exception:  # a tool that no longer runs: the tests already said so
            declared = set()
        missing = sorted(declared - tack.REACHED[tool])
        tr.write_line(f"{tool}: {len(tack.REACHED[tool])} rules reached"
                      + (f"; declared but not reached: {', '.join(missing)}" if missing else ""))
    tr.write_line(f"retry repairs executed: {len(tack.RETRIES)}")
