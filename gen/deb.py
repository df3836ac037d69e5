#!/usr/bin/python3
"""Builds the Debian package of tack from a build tree (make deb).

    deb.py --build BUILD --out DIR

Installs the build into a staging root (cmake --install, prefix /usr, stripped; the share/
files are generated there from the installed binaries), adds what Debian asks of a package
(copyright, changelog, compressed man pages, md5sums), computes Depends with dpkg-shlibdeps
from the binaries that link dynamically (none does: every binary is static), names in
Static-Built-Using the source packages compiled or linked into the tools (Debian's simdjson in
jsonq, run and tack-mcp, Debian's hyperscan in seek, as CMake found them: BUILD/static-built-using,
one a line), and writes DIR/tack_VERSION_ARCH.deb with
dpkg-deb. Prints the package's path.
"""

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import time

import dist

MAINTAINER = "tack <tack@tack.dev>"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw).stdout


def is_dynamic_elf(path):
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            return False
    return "INTERP" in run(["readelf", "-lW", path])


def depends(elfs):
    """Depends as dpkg-shlibdeps derives it from the libraries the binaries load."""
    if not elfs:
        return ""
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "debian"))
        with open(os.path.join(d, "debian", "control"), "w") as f:
            f.write("Source: tack\n\nPackage: tack\nArchitecture: any\n")
        out = run(["dpkg-shlibdeps", "-O", *[os.path.abspath(e) for e in elfs]], cwd=d)
    for line in out.splitlines():
        if line.startswith("shlibs:Depends="):
            return line.split("=", 1)[1]
    return ""


def gzip_n(path, level=9):
    """gzip -9n: no name, no time stamp, so the package is reproducible."""
    with open(path, "rb") as f:
        data = f.read()
    with open(path + ".gz", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=level, fileobj=raw, mtime=0) as g:
            g.write(data)
    os.unlink(path)


def description(index):
    lines = ["small command-line tools for AI agents, with JSON answers",
             " Each tool answers with one JSON document or an NDJSON stream that says when it",
             " finished, exits with a semantic code and reports every error as data with a",
             " stable rule tag and, where one exists, a repair that runs as it stands. The",
             " tools are installed in /usr/lib/tack/bin, so that none shadows a system",
             " command; the tack launcher runs them. The tools:"]
    for e in index["tools"]:
        lines += textwrap.wrap(f"{e['name']}: {e['summary']}", width=79,
                               initial_indent="  ", subsequent_indent="    ")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--compression", default="xz", choices=["xz", "gzip"],
                   help="xz as Debian's archive has it; gzip is 30 times faster (the tests)")
    a = p.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out)
    stage = os.path.join(out, "deb-root")
    if os.path.exists(stage):
        shutil.rmtree(stage)
    env = dict(os.environ, DESTDIR=stage,
               SOURCE_DATE_EPOCH=str(dist.source_date()))
    run(["cmake", "--install", build, "--prefix", "/usr", "--strip"], env=env)
    usr = os.path.join(stage, "usr")

    man1 = os.path.join(usr, "share", "man", "man1")
    for name in sorted(os.listdir(man1)):
        gzip_n(os.path.join(man1, name))
    doc = os.path.join(usr, "share", "doc", "tack")
    os.makedirs(doc, exist_ok=True)
    year = time.gmtime(dist.source_date()).tm_year
    with open(os.path.join(HERE, "debian-copyright")) as f:
        copyright_ = f.read().replace("@YEAR@", str(year))
    with open(os.path.join(doc, "copyright"), "w") as f:
        f.write(copyright_)
    with open(os.path.join(usr, "share", "tack", "tools.json")) as f:
        index = json.load(f)
    version = index["version"]
    date = subprocess.run(["date", "-u", "-R", "-d", f"@{dist.source_date()}"], check=True,
                          capture_output=True, text=True).stdout.strip()
    changelog = os.path.join(doc, "changelog")
    with open(changelog, "w") as f:
        f.write(f"tack ({version}) unstable; urgency=medium\n\n"
                f"  * tack {version}: the tools, the tack launcher, tack-mcp, man pages,\n"
                "    completions, skills and tools.json.\n\n"
                f" -- {MAINTAINER}  {date}\n")
    gzip_n(changelog)
    overrides = os.path.join(usr, "share", "lintian", "overrides")
    os.makedirs(overrides, exist_ok=True)
    shutil.copy(os.path.join(HERE, "lintian-overrides"), os.path.join(overrides, "tack"))

    # Debian's modes, whatever the umask of the build: 0755 directories and programs, 0644
    # the rest.
    elfs, sums = [], []
    for root, dirs, files in os.walk(stage):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            executable = os.path.relpath(root, usr) in ("bin", "lib/tack/bin")
            os.chmod(path, 0o755 if executable else 0o644)
            if executable and is_dynamic_elf(path):
                elfs.append(path)
            with open(path, "rb") as f:
                sums.append((hashlib.md5(f.read()).hexdigest(), os.path.relpath(path, stage)))
    with open(os.path.join(build, "static-built-using")) as f:
        static_built_using = ", ".join(ln.strip() for ln in f if ln.strip())
    size_kib = int(run(["du", "-sk", "--apparent-size", usr]).split()[0])
    arch = run(["dpkg", "--print-architecture"]).strip()
    control = {
        "Package": "tack",
        "Version": version,
        "Architecture": arch,
        "Maintainer": MAINTAINER,
        "Installed-Size": str(size_kib),
        "Depends": depends(elfs),
        "Static-Built-Using": static_built_using,
        "Section": "utils",
        "Priority": "optional",
        "Description": description(index),
    }
    debian = os.path.join(stage, "DEBIAN")
    os.makedirs(debian)
    with open(os.path.join(debian, "control"), "w") as f:
        for k, v in control.items():
            if v:
                f.write(f"{k}: {v}\n")
    with open(os.path.join(debian, "md5sums"), "w") as f:
        for digest, rel in sorted(sums, key=lambda s: s[1]):
            f.write(f"{digest}  {rel}\n")
    for name in os.listdir(debian):
        os.chmod(os.path.join(debian, name), 0o644)
    deb = os.path.join(out, f"tack_{version}_{arch}.deb")
    run(["dpkg-deb", "--root-owner-group", "-Z" + a.compression, "--build", stage, deb], env=env)
    print(deb)


if __name__ == "__main__":
    main()
