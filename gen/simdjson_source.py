#!/usr/bin/python3
"""Unpacks Debian's own source of simdjson, the version of the installed libsimdjson-dev (make deps).

    simdjson_source.py --out DIR

jsonq, tack-mcp and the unit tests link simdjson statically, and Debian ships it only as a
shared library; so CMake compiles the amalgamated singleheader/simdjson.cpp of Debian's source
package (with Debian's patches applied) into a static library. This script puts that source
tree in DIR: it asks apt for the source package and version libsimdjson-dev was built from,
and when apt knows no source index it adds one (a deb-src entry, in
/etc/apt/sources.list.d/tack-src.sources, for the archive the installed package came from,
signed by the same keys) and updates; then `apt-get source` downloads, checks and unpacks it.
Nothing is done when DIR already holds that version. Needs root only to add the entry.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

BINARY = "libsimdjson-dev"
OUR_SOURCES = "/etc/apt/sources.list.d/tack-src.sources"


def out(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw).stdout


def fail(message):
    sys.exit(f"simdjson_source.py: {message}")


def installed():
    """(source package, version) that the installed libsimdjson-dev was built from."""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${source:Package} ${source:Version}", BINARY],
                       capture_output=True, text=True)
    if r.returncode != 0 or len(r.stdout.split()) != 2:
        fail(f"{BINARY} is not installed (make deps installs it)")
    name, version = r.stdout.split()
    return name, version


def unpacked_version(tree):
    """The version at the head of DIR/debian/changelog, or None when DIR holds no source."""
    try:
        with open(os.path.join(tree, "debian", "changelog")) as f:
            m = re.match(r"\S+ \(([^)]+)\)", f.readline())
    except OSError:
        return None
    if m and os.path.isfile(os.path.join(tree, "singleheader", "simdjson.cpp")):
        return m.group(1)
    return None


def apt_has_source(name, version):
    r = subprocess.run(["apt-cache", "showsrc", "--only-source", name], capture_output=True,
                       text=True)
    return f"Version: {version}" in r.stdout.splitlines()


def entries():
    """Every enabled entry of the apt sources: dicts of types, uris, suites, components and
    signed-by, from the one-line files (.list) and the deb822 ones (.sources)."""
    found = []
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in files:
        try:
            lines = open(path).read().splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.split("#", 1)[0].strip()
            m = re.match(r"(deb|deb-src)\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)", line)
            if not m:
                continue
            options = dict(o.split("=", 1) for o in (m.group(2) or "").split() if "=" in o)
            found.append({"types": [m.group(1)], "uris": [m.group(3)], "suites": [m.group(4)],
                          "components": m.group(5).split(),
                          "signed-by": options.get("signed-by", "")})
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        try:
            text = open(path).read()
        except OSError:
            continue
        for stanza in re.split(r"\n\s*\n", text):
            fields, key = {}, None
            for line in stanza.splitlines():
                if line.startswith("#"):
                    continue
                if line[:1].isspace() and key:
                    fields[key] += "\n" + line.strip()
                elif ":" in line:
                    key, value = line.split(":", 1)
                    key = key.strip().lower()
                    fields[key] = value.strip()
            if not fields.get("types") or fields.get("enabled", "yes").lower() == "no":
                continue
            found.append({"types": fields["types"].split(), "uris": fields.get("uris", "").split(),
                          "suites": fields.get("suites", "").split(),
                          "components": fields.get("components", "").split(),
                          "signed-by": fields.get("signed-by", "")})
    return found


def origins(version):
    """(uri, suite, component) of each archive index that lists the installed version, as
    `apt-cache policy` says: "500 http://deb.debian.org/debian bookworm/main amd64 Packages"."""
    found, inside = [], False
    for line in out(["apt-cache", "policy", BINARY]).splitlines():
        m = re.match(r"\s+(?:\*\*\* )?(\S+) -?\d+$", line)
        if m:
            inside = m.group(1) == version
            continue
        m = re.match(r"\s+-?\d+ (\S+) ([^/\s]+)/(\S+) \S+ Packages$", line)
        if inside and m:
            found.append(m.groups())
    return found


def add_source_entry(version):
    """Writes a deb-src entry for the archive the installed package came from."""
    listed = entries()
    if any("deb-src" in e["types"] for e in listed):
        return False  # the machine has its own deb-src entries: they only need an update
    stanzas = []
    for uri, suite, component in origins(version):
        stanza = ["Types: deb-src", f"URIs: {uri}", f"Suites: {suite}",
                  f"Components: {component}"]
        for e in listed:
            if ("deb" in e["types"] and suite in e["suites"] and e["signed-by"]
                    and uri.rstrip("/") in (u.rstrip("/") for u in e["uris"])):
                key = e["signed-by"].splitlines()
                stanza.append("Signed-By: " + "\n ".join(key))
                break
        stanzas.append("\n".join(stanza))
    if not stanzas:
        fail(f"apt knows no archive that holds {BINARY} {version}, so no source entry can be "
             "added for it")
    if os.geteuid() != 0:
        fail(f"apt has no source index; run `make deps` as root to add {OUR_SOURCES}")
    with open(OUR_SOURCES, "w") as f:
        f.write("# Written by tack's `make deps`: the source of simdjson, which tack links\n"
                "# statically, from the archive its binary package came from.\n")
        f.write("\n\n".join(stanzas) + "\n")
    print(f"simdjson: added {OUR_SOURCES}")
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the directory of the unpacked source")
    dest = os.path.abspath(p.parse_args().out)
    name, version = installed()
    if unpacked_version(dest) == version:
        return
    if not apt_has_source(name, version):
        add_source_entry(version)
        if os.geteuid() != 0:
            fail("apt's source index is out of date; run `make deps` as root")
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        if not apt_has_source(name, version):
            fail(f"no apt source index holds {name} {version}")
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=parent) as tmp:
        # As root, apt downloads as root (its _apt user could not write here): said once, here.
        r = subprocess.run(["apt-get", "source", "-qq", "-o", "APT::Sandbox::User=root",
                            "--only-source", f"{name}={version}"], cwd=tmp,
                           capture_output=True, text=True)
        trees = [d for d in os.listdir(tmp) if os.path.isdir(os.path.join(tmp, d))]
        if r.returncode != 0 or len(trees) != 1:
            fail(f"apt-get source {name}={version} failed:\n{r.stdout}{r.stderr}")
        tree = os.path.join(tmp, trees[0])
        if unpacked_version(tree) != version:
            fail(f"the unpacked source of {name} is not {version} or has no "
                 "singleheader/simdjson.cpp")
        if os.path.exists(dest):
            shutil.rmtree(dest)
        os.rename(tree, dest)
    print(f"simdjson: Debian's source {name} {version} in {dest}")


if __name__ == "__main__":
    main()
