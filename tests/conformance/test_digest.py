"""digest — SHA-256/SHA-512 of files as a stream, gate by gate.

M5 differential against sha256sum/sha512sum (every padding boundary, random sizes and bytes,
text mode byte for byte including the escaped names), M3 every declared rule reached and
--verify's rules, M8 confinement (links, FIFO, dot-dot, absolute, swapped during the call),
M9 peak memory flat at 1, 64 and 256 MiB, and the hostile cases: errors in input order while
the other files are still hashed, non-UTF-8 names, closed or full stdout, no OpenSSL config.
Every invocation goes through tack.run, which validates each record against the schema.
"""

import ctypes
import hashlib
import os
import random
import subprocess
import threading
import time

import pytest

import tack
from tack import SECRET, run

MiB = 1024 * 1024
BOUNDARY_SIZES = [0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, MiB + 1]


def digests(r):
    return [rec for rec in r.json if rec["type"] == "digest"]


def end(r):
    return r.json[-1]


def gnu(algo, paths, cwd):
    """sha256sum/sha512sum's output on the same files."""
    p = subprocess.run([f"{algo}sum", "--", *paths], capture_output=True, cwd=cwd,
                       env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    return p.returncode, p.stdout


# --- M5: differential against GNU -------------------------------------------------------

@pytest.mark.parametrize("algo", ["sha256", "sha512"])
def test_boundary_sizes_match_gnu(tmp_path, algo):
    rnd = random.Random(5)
    names = []
    for n in BOUNDARY_SIZES:
        name = f"s{n}.bin"
        (tmp_path / name).write_bytes(bytes(rnd.randrange(256) for _ in range(n)))
        names.append(name)
    r = run("digest", "--root", tmp_path, "--algo", algo, *names)
    assert r.exit == 0
    code, out = gnu(algo, names, tmp_path)
    assert code == 0
    want = [line.split(b"  ", 1) for line in out.splitlines()]
    got = digests(r)
    assert [(d["hex"].encode(), tack.tob(d["path"])) for d in got] == [(h, n) for h, n in want]
    assert [d["bytes"] for d in got] == BOUNDARY_SIZES
    assert all(d["algo"] == algo for d in got)
    assert end(r)["files"] == len(names) and end(r)["bytes"] == sum(BOUNDARY_SIZES)
    assert end(r)["errors"] == 0 and end(r)["complete"] is True
    # the same bytes, text mode: sha256sum's output exactly
    t = run("digest", "--root", tmp_path, "--algo", algo, "--format", "text", *names)
    assert t.exit == 0 and t.out == out


@pytest.mark.parametrize("seed", range(6))
def test_random_sizes_and_bytes_match_gnu_and_hashlib(tmp_path, seed):
    rnd = random.Random(seed)
    names = []
    for i in range(8):
        n = rnd.choice([rnd.randrange(0, 300), rnd.randrange(0, 70000), rnd.randrange(0, 3 * MiB)])
        data = rnd.randbytes(n) if i % 2 else bytes(rnd.choice(b"ab\n\r\0\xff") for _ in range(n))
        name = f"r{i}.bin"
        (tmp_path / name).write_bytes(data)
        names.append(name)
    for algo in ("sha256", "sha512"):
        t = run("digest", "--root", tmp_path, "--algo", algo, "--format", "text", *names)
        assert (0, t.out) == gnu(algo, names, tmp_path)
        r = run("digest", "--root", tmp_path, "--algo", algo, *names)
        for d, name in zip(digests(r), names):
            data = (tmp_path / name).read_bytes()
            assert d["hex"] == hashlib.new(algo, data).hexdigest()
            assert d["bytes"] == len(data)


def test_chunk_boundaries_around_the_read_buffer(tmp_path):
    """Sizes on either side of every plausible buffer size, so a short or split read shows."""
    rnd = random.Random(9)
    names = []
    for base in (4096, 65536, 131072, 262144, 524288, 1048576):
        for n in (base - 1, base, base + 1):
            name = f"b{n}.bin"
            (tmp_path / name).write_bytes(rnd.randbytes(n))
            names.append(name)
    t = run("digest", "--root", tmp_path, "--format", "text", *names)
    assert (0, t.out) == gnu("sha256", names, tmp_path)


def test_odd_names_in_text_mode_are_escaped_as_sha256sum_does(tree):
    """sha256sum prefixes a line with '\\' and escapes \\, \\n, \\r when the name holds one."""
    names = [b"back\\slash", b"new\nline", b"car\rriage", b"all\\\n\r", b"plain name",
             b"\xff\xfe-latin.txt", b"-rf", b"it's \"quoted\""]
    for n in names:
        tree.write(n, b"content of " + n)
    t = run("digest", "--root", tree.root, "--format", "text", "--", *names)
    code, out = gnu("sha256", names, tree.root)
    assert code == 0 and t.exit == 0 and t.out == out
    assert t.out.count(b"\n") == len(names)  # one line per file, whatever the name holds
    r = run("digest", "--root", tree.root, "--", *names)
    assert [tack.tob(d["path"]) for d in digests(r)] == names
    assert digests(r)[5]["path"] == {"b64": tack.base64.b64encode(names[5]).decode()}


def test_large_file_streams(tmp_path):
    data = random.Random(3).randbytes(5 * MiB + 17)
    (tmp_path / "big.bin").write_bytes(data)
    r = run("digest", "--root", tmp_path, "--algo", "sha512", "big.bin")
    assert digests(r)[0]["hex"] == hashlib.sha512(data).hexdigest()
    assert digests(r)[0]["bytes"] == len(data)


# --- errors per path, in input order ------------------------------------------------------

def test_errors_in_input_order_while_the_rest_is_hashed(tree):
    tree.fifo("fifo")
    args = ["plain.txt", "missing.txt", "crlf.txt", "dir", "fifo", "link_out_file",
            "empty.txt"]
    r = run("digest", "--root", tree.root, *args, timeout=10)
    kinds = [(rec["type"], rec.get("path") or rec.get("error", {}).get("rule"))
             for rec in r.json[:-1]]
    assert kinds == [("digest", "plain.txt"), ("error", "io.not-found"),
                     ("digest", "crlf.txt"), ("error", "io.is-a-directory"),
                     ("error", "io.special-file"), ("error", "path.symlink"),
                     ("digest", "empty.txt")]
    assert r.exit == 3  # the first error decides
    e = end(r)
    assert (e["ok"], e["complete"], e["files"], e["errors"]) == (False, False, 3, 4)
    assert e["bytes"] == len(tack.PLAIN) + len(tack.CRLF)
    assert digests(r)[2]["hex"] == hashlib.sha256(b"").hexdigest()
    for rec in r.json:
        if rec["type"] == "error":
            assert tack.tob(rec["error"]["detail"]["path"]) in [a.encode() for a in args]


def test_text_mode_errors_go_to_stderr_and_hashes_still_print(tree):
    r = run("digest", "--root", tree.root, "--format", "text", "missing.txt", "plain.txt")
    assert r.exit == 3
    assert r.out == hashlib.sha256(tack.PLAIN).hexdigest().encode() + b"  plain.txt\n"
    assert r.err.startswith(b"digest: io.not-found: ")


def test_same_file_twice_and_many_paths(tree):
    names = ["plain.txt"] * 3 + ["crlf.txt"] * 200
    r = run("digest", "--root", tree.root, *names)
    assert [tack.tob(d["path"]) for d in digests(r)] == [n.encode() for n in names]
    assert end(r)["files"] == 203


def test_normalized_path_is_reported(tree):
    r = run("digest", "--root", tree.root, "./dir//sub/./deep.txt")
    assert digests(r)[0]["path"] == "dir/sub/deep.txt"
    assert digests(r)[0]["hex"] == hashlib.sha256(tack.DEEP).hexdigest()


# --- --verify -----------------------------------------------------------------------------

def test_verify_match_is_success(tree):
    h = hashlib.sha256(tack.PLAIN).hexdigest()
    for given in (h, h.upper()):
        r = run("digest", "--root", tree.root, "--verify", given, "plain.txt")
        assert r.exit == 0 and end(r)["ok"] is True and r.errors == []
    h512 = hashlib.sha512(tack.PLAIN).hexdigest()
    r = run("digest", "--root", tree.root, "--algo", "sha512", "--verify", h512, "plain.txt")
    assert r.exit == 0


def test_verify_mismatch_comes_after_the_record(tree):
    wrong = hashlib.sha256(b"something else").hexdigest()
    r = run("digest", "--root", tree.root, "--verify", wrong.upper(), "plain.txt")
    assert r.exit == 8 and [x["type"] for x in r.json] == ["digest", "error", "end"]
    e = r.errors[0]
    assert e["rule"] == "precondition.hash-failed"
    actual = hashlib.sha256(tack.PLAIN).hexdigest()
    assert e["detail"]["expected"] == wrong and e["detail"]["actual"] == actual
    assert e["detail"]["algo"] == "sha256" and e["detail"]["path"] == "plain.txt"
    assert e["repair"]["kind"] == "none"
    assert r.json[0]["hex"] == actual
    assert end(r)["complete"] is False and end(r)["errors"] == 1


def test_verify_mismatch_in_text_mode(tree):
    wrong = "0" * 64
    r = run("digest", "--root", tree.root, "--format", "text", "--verify", wrong, "plain.txt")
    assert r.exit == 8 and r.err.startswith(b"digest: precondition.hash-failed: ")
    assert r.out.endswith(b"  plain.txt\n")


def test_verify_on_a_missing_file_is_the_io_error_only(tree):
    r = run("digest", "--root", tree.root, "--verify", "a" * 64, "missing.txt")
    assert r.rules == ["io.not-found"]


@pytest.mark.parametrize("algo,value,why", [
    ("sha256", "abc", "short"),
    ("sha256", "g" * 64, "not hex"),
    ("sha256", "a" * 128, "sha512 length"),
    ("sha512", "a" * 64, "sha256 length"),
    ("sha256", "a" * 63 + " ", "space"),
    ("sha256", "", "empty"),
    ("sha256", "\u00e9" * 32, "non-ascii"),
])
def test_verify_bad_hex_is_an_argument_error(tree, algo, value, why):
    tree.fifo("fifo")
    r = run("digest", "--root", tree.root, "--algo", algo, "--verify", value, "fifo", timeout=5)
    assert r.rules == ["args.bad-value"], why
    assert r.exit == 2 and r.errors[0]["detail"]["flag"] == "verify"
    assert [x["type"] for x in r.json] == ["error", "end"]
    if why.endswith("length"):  # a whole hash of the other algorithm: retry with it
        other = "sha512" if algo == "sha256" else "sha256"
        assert f"--algo={other}" in [tack.tob(x).decode() for x in r.errors[0]["repair"]["argv"]]
        assert r.retried[0].rules == ["io.special-file"]  # the retry ran and got past args
    else:
        assert r.errors[0]["repair"] is None


def test_verify_with_several_paths_is_a_conflict(tree):
    r = run("digest", "--root", tree.root, "--verify", "a" * 64, "plain.txt", "crlf.txt")
    assert r.rules == ["args.conflict"] and r.exit == 2
    assert r.errors[0]["detail"]["paths"] == 2
    assert digests(r) == []


# --- --check: a sha256sum/sha512sum list --------------------------------------------------

def checks(r):
    return [rec for rec in r.json if rec["type"] == "check"]


def sha(data, algo="sha256"):
    return hashlib.new(algo, data).hexdigest()


def gnu_check(algo, listname, cwd):
    p = subprocess.run([f"{algo}sum", "-c", "--", listname], capture_output=True, cwd=cwd,
                       env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, timeout=30)
    return p.returncode, p.stdout


def verdicts_of_gnu(out):
    """sha256sum -c's stdout as (name as printed, verdict) pairs."""
    pairs = []
    for line in out.split(b"\n")[:-1]:
        name, v = line.rsplit(b": ", 1) if not line.endswith(b"FAILED open or read") else \
            (line[:-len(b": FAILED open or read")], b"FAILED open or read")
        pairs.append((name, {b"OK": "ok", b"FAILED": "mismatch",
                             b"FAILED open or read": "error"}[v]))
    return pairs


def printed(name):
    """A name as sha256sum -c prints it: escaped with a leading backslash when it has '\\n'."""
    if b"\n" not in name:
        return name
    return b"\\" + name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")


def differential_tree(tmp_path, algo):
    """Files of every odd kind and a list naming them in every form sha256sum -c reads: both
    markers, uppercase hex, escaped names, CRLF, comments, blank lines, duplicates, a changed
    file, a missing one, a directory."""
    rnd = random.Random(21)
    files = {b"a.txt": b"alpha\n", b"with space.txt": b"spaced", b"back\\slash": b"bs",
             b"new\nline": b"nl", b"all\\\nboth": b"both", b"empty": b"",
             b"\xff\xfe-latin": b"latin", b"-rf": b"dash", b"#hash": b"hash",
             b"big.bin": rnd.randbytes(300_000), b"sub/deep.txt": b"deep\n"}
    os.mkdir(tmp_path / "sub")
    for n, c in files.items():
        (tmp_path / os.fsdecode(n)).write_bytes(c)
    lines = []
    for n, c in files.items():
        h = sha(c, algo)
        esc = b"\\" in n or b"\n" in n
        shown = n.replace(b"\\", b"\\\\").replace(b"\n", b"\\n") if esc else n
        lines.append((b"\\" if esc else b"") + h.encode() + b"  " + shown + b"\n")
    h = sha(b"alpha\n", algo)
    lines += [b"# a comment line\n", b"\n",
              h.upper().encode() + b" *a.txt\n",              # binary marker, uppercase hex
              h.encode() + b"  a.txt\r\n",                     # CRLF
              h.encode() + b"  a.txt\n",                       # duplicate
              sha(b"other", algo).encode() + b"  a.txt\n",     # changed since
              h.encode() + b"  missing.txt\n",
              h.encode() + b"  sub\n",                         # a directory
              sha(b"deep\n", algo).encode() + b"  ./sub//deep.txt\n"]  # not the normal form
    (tmp_path / "LIST").write_bytes(b"".join(lines))
    return files


@pytest.mark.parametrize("algo", ["sha256", "sha512"])
def test_check_agrees_with_sha256sum_c_on_every_verdict(tmp_path, algo):
    differential_tree(tmp_path, algo)
    code, out = gnu_check(algo, "LIST", tmp_path)
    want = verdicts_of_gnu(out)
    assert code == 1 and len(want) == 18  # the fixture reaches OK, FAILED and unreadable
    assert {v for _, v in want} == {"ok", "mismatch", "error"}
    r = run("digest", "--root", tmp_path, "--check", "LIST")
    got = [(printed(tack.tob(c["path"])), c["verdict"]) for c in checks(r)]
    assert got == want
    assert all(c["algo"] == algo for c in checks(r))
    # sha256sum -c's text, byte for byte
    t = run("digest", "--root", tmp_path, "--format", "text", "--check", "LIST")
    assert t.out == out
    # without --root, names are relative to the working directory, as sha256sum's are
    n = run("digest", "--check", "LIST", cwd=tmp_path)
    assert [(printed(tack.tob(c["path"])), c["verdict"]) for c in checks(n)] == want


def test_check_records_errors_and_end(tmp_path):
    files = differential_tree(tmp_path, "sha256")
    r = run("digest", "--root", tmp_path, "--check", "LIST")
    assert r.exit == 8  # the first error: the changed a.txt
    kinds = [(x["type"], x.get("verdict") or x.get("error", {}).get("rule")) for x in r.json]
    tail = kinds[len(files) + 3:]
    assert tail == [("check", "mismatch"), ("error", "precondition.hash-failed"),
                    ("check", "error"), ("error", "io.not-found"),
                    ("check", "error"), ("error", "io.is-a-directory"),
                    ("check", "ok"), ("end", None)]
    mism = r.errors[0]
    assert mism["detail"]["expected"] == sha(b"other") and mism["detail"]["actual"] == sha(b"alpha\n")
    assert mism["detail"]["line"] == len(files) + 6 and mism["detail"]["list"] == "LIST"
    assert mism["repair"]["kind"] == "none"
    assert r.errors[1]["detail"]["line"] == len(files) + 7
    for c in checks(r):
        if c["verdict"] == "error":
            assert c["actual"] is None and c["bytes"] is None
        else:
            assert c["bytes"] == len((tmp_path / os.fsdecode(tack.tob(c["path"]))).read_bytes())
    up = checks(r)[len(files)]
    assert up["expected"] == sha(b"alpha\n") and up["verdict"] == "ok"  # uppercase, lowercased
    e = r.json[-1]
    assert (e["entries"], e["passed"], e["mismatched"], e["unreadable"], e["malformed"]) == \
        (len(files) + 7, len(files) + 4, 1, 2, 0)
    assert e["failed"] == ["a.txt", "missing.txt", "sub"] and e["errors"] == 3
    assert e["files"] == len(files) + 5 and e["complete"] is False


def test_check_all_good_is_success_and_round_trips_digest_text(tree):
    names = tree.odd_names()
    t = run("digest", "--root", tree.root, "--format", "text", "--", *names)
    tree.write("odd.sums", t.out)
    r = run("digest", "--root", tree.root, "--check", "odd.sums")
    assert r.exit == 0 and r.errors == []
    assert [tack.tob(c["path"]) for c in checks(r)] == list(names)
    assert all(c["verdict"] == "ok" and c["actual"] == c["expected"] for c in checks(r))
    e = r.json[-1]
    assert e["ok"] is True and e["complete"] is True and e["failed"] == []
    assert e["passed"] == e["entries"] == len(names)
    assert checks(r)[-1]["path"] == {"b64": tack.base64.b64encode(b"\xff\xfe-latin.txt").decode()}


@pytest.mark.parametrize("content", [b"", b"\n\n", b"# only a comment\n", b"\r\n# x\r\n"],
                         ids=["empty", "blank", "comment", "crlf-blank"])
def test_check_a_list_without_entries_is_no_match(tree, content):
    tree.write("nothing.sums", content)
    r = run("digest", "--root", tree.root, "--check", "nothing.sums")
    assert r.rules == ["precondition.no-match"] and r.exit == 8
    assert r.errors[0]["detail"] == {"path": "nothing.sums", "lines": content.count(b"\n")}
    assert checks(r) == [] and r.json[-1]["entries"] == 0


def test_check_crlf_list_blank_lines_and_spaces_in_names(tree):
    tree.write("a b  c.txt", b"spaced\n")
    h = sha(b"spaced\n")
    tree.write("crlf.sums", f"\r\n{h}  a b  c.txt\r\n\r\n{h} *a b  c.txt\r\n".encode())
    r = run("digest", "--root", tree.root, "--check", "crlf.sums")
    assert r.exit == 0
    assert [(c["line"], c["path"], c["verdict"]) for c in checks(r)] == \
        [(2, "a b  c.txt", "ok"), (4, "a b  c.txt", "ok")]


@pytest.mark.parametrize("line,reason", [
    (b"junk", "format"),
    (b"abc", "format"),
    (b"SHA256 (plain.txt) = " + b"0" * 64, "format"),
    (b"0" * 63 + b"  plain.txt", "hex-length"),
    (b"0" * 65 + b"  plain.txt", "hex-length"),
    (b"0" * 64 + b" plain.txt", "separator"),
    (b"0" * 64 + b"\tplain.txt", "format"),
    (b"0" * 64, "separator"),
    (b"0" * 64 + b"g  plain.txt", "format"),
    (b"\\" + b"0" * 64 + b"  a\\tb", "escape"),
    (b"\\" + b"0" * 64 + b"  ab\\", "escape"),
    (b"0" * 64 + b"  ", "empty-name"),
    (b"0" * 64 + b" *", "empty-name"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_check_malformed_line_is_tagged_and_the_rest_is_checked(tree, line, reason):
    good = sha(tack.PLAIN).encode() + b"  plain.txt\n"
    tree.write("bad.sums", good + line + b"\n" + good)
    r = run("digest", "--root", tree.root, "--check", "bad.sums")
    assert r.rules == ["parse.checksum-line"] and r.exit == 8
    d = r.errors[0]["detail"]
    assert (d["path"], d["line"], d["reason"], d["length"]) == ("bad.sums", 2, reason, len(line))
    assert tack.tob(d["text"]) == line
    assert [(c["line"], c["verdict"]) for c in checks(r)] == [(1, "ok"), (3, "ok")]
    assert r.json[-1]["malformed"] == 1 and r.json[-1]["failed"] == []
    # sha256sum -c calls the same line improperly formatted and checks the rest too (except
    # the BSD tagged form, which it reads and digest does not)
    if not line.startswith(b"SHA256 ("):
        code, out = gnu_check("sha256", "bad.sums", tree.root)
        assert out == b"plain.txt: OK\nplain.txt: OK\n"


def test_check_algo_given_must_agree_with_the_hash_length(tree):
    h256, h512 = sha(tack.PLAIN), sha(tack.PLAIN, "sha512")
    tree.write("mixed.sums", f"{h256}  plain.txt\n{h512}  plain.txt\n".encode())
    r = run("digest", "--root", tree.root, "--check", "mixed.sums")
    assert r.exit == 0 and [c["algo"] for c in checks(r)] == ["sha256", "sha512"]
    r = run("digest", "--root", tree.root, "--algo", "sha512", "--check", "mixed.sums")
    assert r.rules == ["parse.checksum-line"] and r.errors[0]["detail"]["reason"] == "algo"
    assert r.errors[0]["detail"]["line"] == 1 and [c["line"] for c in checks(r)] == [2]
    r = run("digest", "--root", tree.root, "--algo", "sha256", "--check", "mixed.sums")
    assert r.errors[0]["detail"]["line"] == 2 and [c["line"] for c in checks(r)] == [1]


def test_check_names_are_confined_per_entry_and_never_followed(tree):
    tree.fifo("fifo")
    secret = sha(SECRET + b"\n")
    lines = [f"{secret}  ../outside/secret.txt", f"{secret}  {tree.outside}/secret.txt",
             f"{sha(tack.PLAIN)}  {tree.root}/plain.txt", f"{secret}  link_out_file",
             f"{secret}  fifo", f"{secret}  dir/../../outside/secret.txt",
             f"{sha(tack.PLAIN)}  dir/../plain.txt", f"{sha(tack.PLAIN)}  plain\0.txt",
             f"{secret}  {'a/' * 2049}", f"{sha(tack.PLAIN)}  plain.txt"]
    tree.write("confine.sums", "\n".join(lines).encode() + b"\n")
    t = time.monotonic()
    r = run("digest", "--root", tree.root, "--check", "confine.sums", timeout=10)
    assert time.monotonic() - t < 10
    assert r.rules == ["path.dotdot", "path.outside-root", "path.absolute", "path.symlink",
                       "io.special-file", "path.dotdot", "path.dotdot", "path.bad-name",
                       "path.too-long"]
    assert r.exit == 2
    assert [c["verdict"] for c in checks(r)] == ["error"] * 9 + ["ok"]
    for c in checks(r):
        assert c["actual"] != secret
    for e in r.errors:
        assert e["repair"] is None or e["repair"]["kind"] != "retry"  # the list is the fix
        assert e["detail"]["list"] == "confine.sums"
    # the spelling that would have been right is named, not followed
    assert r.errors[2]["detail"]["suggested"] == "plain.txt"
    assert r.errors[6]["detail"]["suggested"] == "plain.txt"


def test_check_the_list_itself_is_confined(tree):
    tree.fifo("fifo")
    for path, rule in [("../outside/secret.txt", "path.dotdot"), ("link_out_file", "path.symlink"),
                       ("fifo", "io.special-file"), ("dir", "io.is-a-directory"),
                       ("missing.sums", "io.not-found"), (f"{tree.outside}/secret.txt",
                                                          "path.outside-root")]:
        r = run("digest", "--root", tree.root, "--check", path, timeout=10)
        assert r.rules == [rule], path
        assert checks(r) == []


def test_check_list_spelled_with_dotdot_or_absolute_is_retried(tree):
    tree.write("dir/p.sums", sha(tack.PLAIN).encode() + b"  plain.txt\n")
    for spelled in ("dir/sub/../p.sums", f"{tree.root}/dir/p.sums"):
        r = run("digest", "--root", tree.root, "--check", spelled)
        assert r.retried and r.retried[0].exit == 0
        assert checks(r.retried[0])[0]["verdict"] == "ok"


def test_check_duplicates_and_exit_of_the_first_error(tree):
    h = sha(tack.PLAIN)
    tree.write("dup.sums", f"{h}  missing.txt\n{h}  plain.txt\n{h}  plain.txt\n{'0' * 64}  plain.txt\n"
               .encode())
    r = run("digest", "--root", tree.root, "--check", "dup.sums")
    assert r.rules == ["io.not-found", "precondition.hash-failed"] and r.exit == 3
    assert [c["verdict"] for c in checks(r)] == ["error", "ok", "ok", "mismatch"]
    assert r.json[-1]["failed"] == ["missing.txt", "plain.txt"]


def test_check_failed_names_are_capped_with_counts(tree):
    h = sha(b"")
    tree.write("many.sums", b"".join(f"{h}  gone{i}\n".encode() for i in range(150)))
    r = run("digest", "--root", tree.root, "--check", "many.sums")
    e = r.json[-1]
    assert e["unreadable"] == 150 and len(e["failed"]) == 100
    assert e["failed"] == [f"gone{i}" for i in range(100)] and e["errors"] == 150


def test_check_text_mode(tree):
    h = sha(tack.PLAIN)
    tree.write("t.sums", f"{h}  plain.txt\n{'0' * 64}  plain.txt\n{h}  missing.txt\nbad\n".encode())
    t = run("digest", "--root", tree.root, "--format", "text", "--check", "t.sums")
    assert t.exit == 8
    assert t.out == b"plain.txt: OK\nplain.txt: FAILED\nmissing.txt: FAILED open or read\n"
    assert [l.split(b": ")[1] for l in t.err.splitlines()] == \
        [b"precondition.hash-failed", b"io.not-found", b"parse.checksum-line"]
    # a name with \r is escaped as one with \n is, so the line stays whole on a terminal
    # (sha256sum -c 9.1 escapes only for \n)
    tree.write(b"c\rr", b"c")
    tree.write("cr.sums", b"\\" + sha(b"c").encode() + b"  c\\rr\n")
    t = run("digest", "--root", tree.root, "--format", "text", "--check", "cr.sums")
    assert t.exit == 0 and t.out == b"\\c\\rr: OK\n"


def test_check_argument_conflicts(tree):
    tree.write("p.sums", sha(tack.PLAIN).encode() + b"  plain.txt\n")
    r = run("digest", "--root", tree.root, "--check", "p.sums", "plain.txt")
    assert r.rules == ["args.conflict"] and r.errors[0]["detail"]["flags"] == ["--check", "PATH"]
    r = run("digest", "--root", tree.root, "--check", "p.sums", "--verify", "0" * 64)
    assert r.rules == ["args.conflict"]
    r = run("digest", "--root", tree.root)
    assert r.rules == ["args.missing-operand"]


@pytest.mark.slow
def test_check_a_2gib_line_is_measured_not_held(tmp_path):
    """A line of 2 GiB (a sparse file): one tagged error with its length, the next line still
    checked, and memory flat."""
    (tmp_path / "plain.txt").write_bytes(tack.PLAIN)
    long = 2 * 1024 * MiB
    with open(tmp_path / "huge.sums", "wb") as f:
        f.write(sha(tack.PLAIN).encode() + b"  plain.txt\n")
        f.seek(f.tell() + long)
        f.write(b"\n" + sha(tack.PLAIN).encode() + b"  plain.txt\n")
    r = run("digest", "--root", tmp_path, "--check", "huge.sums", timeout=120)
    assert r.rules == ["parse.checksum-line"]
    d = r.errors[0]["detail"]
    assert (d["line"], d["reason"], d["length"]) == (2, "too-long", long) and "text" not in d
    assert [(c["line"], c["verdict"]) for c in checks(r)] == [(1, "ok"), (3, "ok")]
    p = subprocess.run([str(tack.BIN.parent / "support" / "maxrss"), tack.bin_path("digest"),
                        "--root", str(tmp_path), "--check", "huge.sums"],
                       capture_output=True, timeout=120)
    assert p.returncode == 8 and int(p.stdout.split()[-1]) < 16 * 1024, p


# --- M3: every declared rule reached ------------------------------------------------------

R = "{root}"
FIXTURES = [
    ("args.unknown-flag", [R, "--algo-x", "sha256", "plain.txt"], {}),
    ("args.unknown-flag", [R, "--verfy", "0" * 64, "plain.txt"], {}),
    ("args.missing-value", [R, "plain.txt", "--algo"], {}),
    ("args.bad-value", [R, "--algo", "md5", "plain.txt"], {}),
    ("args.bad-value", [R, "--verify", "xyz", "plain.txt"], {}),
    ("args.unexpected-value", [R, "--help=1", "plain.txt"], {}),
    ("args.duplicate-flag", [R, "--algo", "sha256", "-a", "sha512", "plain.txt"], {}),
    ("args.conflict", [R, "--verify", "0" * 64, "plain.txt", "crlf.txt"], {}),
    ("args.missing-operand", [R], {}),
    ("path.empty", [R, ""], {}),
    ("path.dotdot", [R, "dir/../plain.txt"], {}),
    ("path.absolute", [R, R + "/plain.txt"], {}),
    ("path.outside-root", [R, "/etc/passwd"], {}),
    ("path.too-long", [R, "a" * 4097], {}),
    ("path.symlink", [R, "link_out_file"], {}),
    ("io.not-found", [R, "missing.txt"], {}),
    ("io.not-a-directory", [R, "plain.txt/x"], {}),
    ("io.is-a-directory", [R, "dir"], {}),
    ("io.special-file", [R, "fifo"], {}),
    ("io.special-file", ["/dev/zero"], {}),
    ("io.permission-denied", [R, "noaccess.txt"], {"wrap": tack.NO_DAC}),
    ("io.read-failed", ["/proc/self/mem"], {}),
    ("precondition.hash-failed", [R, "--verify", "0" * 64, "plain.txt"], {}),
    # --check: the list's own path, each entry's, and the list's lines
    ("args.conflict", [R, "--check", "good.sums", "plain.txt"], {}),
    ("args.conflict", [R, "--check", "good.sums", "--verify", "0" * 64], {}),
    ("path.dotdot", [R, "--check", "../good.sums"], {}),
    ("path.absolute", [R, "--check", R + "/good.sums"], {}),
    ("io.not-found", [R, "--check", "missing.sums"], {}),
    ("io.special-file", [R, "--check", "fifo"], {}),
    ("io.not-found", [R, "--check", "entries.sums"], {}),
    ("precondition.hash-failed", [R, "--check", "changed.sums"], {}),
    ("path.dotdot", [R, "--check", "dotdot.sums"], {}),
    ("path.symlink", [R, "--check", "link.sums"], {}),
    ("io.is-a-directory", [R, "--check", "dir.sums"], {}),
    ("path.bad-name", [R, "--check", "nul.sums"], {}),
    ("io.read-failed", ["--check", "/proc/self/mem"], {}),
    ("parse.checksum-line", [R, "--check", "bad.sums"], {}),
    ("parse.checksum-line", [R, "--algo", "sha512", "--check", "good.sums"], {}),
    ("precondition.no-match", [R, "--check", "empty.txt"], {}),
]

LISTS = {
    "good.sums": hashlib.sha256(tack.PLAIN).hexdigest() + "  plain.txt\n",
    "entries.sums": hashlib.sha256(tack.PLAIN).hexdigest() + "  missing.txt\n",
    "changed.sums": "0" * 64 + "  plain.txt\n",
    "dotdot.sums": "0" * 64 + "  ../outside/secret.txt\n",
    "link.sums": "0" * 64 + "  link_out_file\n",
    "dir.sums": "0" * 64 + "  dir\n",
    "bad.sums": "not a checksum line\n",
    "nul.sums": "0" * 64 + "  plain\0.txt\n",
}


def _fixture(tree, args, opts, extra=()):
    tree.fifo("fifo") if not os.path.exists(tree.p("fifo")) else None
    if not os.path.exists(tree.p("noaccess.txt")):
        tree.no_access("noaccess.txt")
    for name, text in LISTS.items():
        tree.write(name, text.encode())
    a = []
    for x in args:
        if x == R:
            a += ["--root", str(tree.root)]
        else:
            a.append(x.replace(R, str(tree.root)))
    return run("digest", *extra, *a, wrap=opts.get("wrap"), cwd=tree.root.parent, timeout=10)


@pytest.mark.parametrize("fx", FIXTURES, ids=[f"{f[0]}-{i}" for i, f in enumerate(FIXTURES)])
def test_fixture_reaches_its_rule(tree, fx):
    rule, args, opts = fx
    r = _fixture(tree, args, opts)
    assert r.rules and r.rules[0] == rule, r
    assert r.exit == tack.CATALOGUE[rule]
    assert end(r)["ok"] is False and end(r)["complete"] is False
    t = _fixture(tree, args, opts, extra=("--format", "text"))
    assert t.exit == tack.CATALOGUE[rule] and t.err.startswith(f"digest: {rule}: ".encode())


def test_reached_rules_equal_declared_rules(tree):
    reached = set()
    for rule, args, opts in FIXTURES:
        reached.update(_fixture(tree, args, opts).rules)
    declared = set(tack.declared_rules("digest"))
    assert reached == declared, (declared - reached, reached - declared)


def test_retry_repairs_were_executed_and_cleared(tree):
    before = len(tack.RETRIES)
    h512 = hashlib.sha512(tack.PLAIN).hexdigest()
    r = run("digest", "--root", tree.root, "--verify", h512, "plain.txt")
    assert r.rules == ["args.bad-value"] and r.retried[0].exit == 0
    assert digests(r.retried[0])[0]["algo"] == "sha512"
    r = run("digest", "--root", tree.root, "--algo", "sha512", "--verify", h512[:64], "plain.txt")
    assert r.retried[0].rules == ["precondition.hash-failed"]  # the retry runs; the hash differs
    r = run("digest", "--root", tree.root, "--verfy", hashlib.sha256(tack.PLAIN).hexdigest(),
            "plain.txt")
    assert r.retried and r.retried[0].exit == 0
    r = run("digest", "--root", tree.root, "dir/./sub/../../plain.txt")
    assert r.retried[0].exit == 0
    assert digests(r.retried[0])[0]["path"] == "plain.txt"
    r = run("digest", "--root", tree.root, f"{tree.root}/dir/sub/deep.txt")
    assert r.retried[0].exit == 0
    assert digests(r.retried[0])[0]["hex"] == hashlib.sha256(tack.DEEP).hexdigest()
    rules = {x["rule"] for x in tack.RETRIES[before:] if x["tool"] == "digest"}
    assert rules == {"args.unknown-flag", "args.bad-value", "path.dotdot", "path.absolute"}


def test_argument_errors_read_nothing(tree, tmp_path):
    def trace(*args):
        log = tmp_path / "trace"
        subprocess.run(["strace", "-qq", "-e", "trace=open,openat,openat2,read", "-o", str(log),
                        tack.bin_path("digest"), *args], capture_output=True, timeout=30)
        return [l for l in log.read_text().splitlines()
                if "plain.txt" in l or l.startswith("read(")]
    good = trace("--root", str(tree.root), "plain.txt")
    assert any("plain.txt" in l for l in good) and any(l.startswith("read(") for l in good)
    for bad in (["--root", str(tree.root), "--verify", "zz", "plain.txt"],
                ["--root", str(tree.root), "--verify", "0" * 64, "plain.txt", "plain.txt"],
                ["--root", str(tree.root), "--algo", "md5", "plain.txt"]):
        assert trace(*bad) == [], bad


# --- M8: confinement ----------------------------------------------------------------------

def _no_secret_hash(r):
    bad = {hashlib.sha256(SECRET + s).hexdigest() for s in (b"\n", b" in dir\n", b" evil\n")}
    for d in digests(r):
        assert d["hex"] not in bad, "a file outside the root was hashed"


@pytest.mark.parametrize("make,rule", [
    (lambda t: "link_out_file", "path.symlink"),
    (lambda t: "link_out_dir/secret.txt", "path.symlink"),
    (lambda t: t.dangling(), "path.symlink"),
    (lambda t: t.chain(), "path.symlink"),
    (lambda t: t.loop(), "path.symlink"),
    (lambda t: t.mid_link() + b"/sub/deep.txt", "path.symlink"),
    (lambda t: t.devzero(), "path.symlink"),
    (lambda t: t.fifo(), "io.special-file"),
    (lambda t: t.socket(), "io.special-file"),
    (lambda t: "../outside/secret.txt", "path.dotdot"),
    (lambda t: "dir/../../outside/secret.txt", "path.dotdot"),
    (lambda t: f"{t.outside}/secret.txt", "path.outside-root"),
    (lambda t: f"{t.evil}/secret.txt", "path.outside-root"),
    (lambda t: f"{t.root}/../outside/secret.txt", "path.outside-root"),
], ids=["file-link", "dir-link", "dangling", "chain", "loop", "mid-path", "dev-zero", "fifo",
        "socket", "dotdot", "dotdot-deep", "absolute-outside", "prefix-sibling", "abs-dotdot"])
def test_confinement_refuses_without_blocking(tree, make, rule):
    path = make(tree)
    t = time.monotonic()
    r = run("digest", "--root", tree.root, path, "plain.txt", timeout=5)
    assert time.monotonic() - t < 5
    assert r.rules == [rule], r
    _no_secret_hash(r)
    if not rule.startswith("path.") or rule == "path.symlink":
        # a per-path refusal: the other path was still hashed
        assert [tack.tob(d["path"]) for d in digests(r)] == [b"plain.txt"]


def test_absolute_inside_retry_and_dotdot_inside_retry(tree):
    r = run("digest", "--root", tree.root, f"{tree.root}/plain.txt")
    assert r.rules == ["path.absolute"] and r.retried[0].exit == 0
    r = run("digest", "--root", tree.root, "dir/sub/../../crlf.txt")
    assert r.rules == ["path.dotdot"] and r.retried[0].exit == 0


def test_without_root_links_are_followed_as_given_but_devices_refused(tree):
    r = run("digest", "link_out_file", cwd=tree.root)
    assert digests(r)[0]["hex"] == hashlib.sha256(SECRET + b"\n").hexdigest()
    r = run("digest", tree.devzero(), cwd=tree.root, timeout=5)
    assert r.rules == ["io.special-file"]


def test_file_swapped_for_a_link_during_calls(tree):
    """A thread exchanges `swap.txt` (a file inside) with a link to the outside secret while
    digest hashes it: each answer is the inside file's hash or a refusal, never the secret's."""
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    tree.write("swap.txt", b"inside swap\n")
    tree.link("swap_link", str(tree.outside / "secret.txt"))
    a, b = tree.p("swap.txt"), tree.p("swap_link")
    assert libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    stop = threading.Event()

    def swapper():
        while not stop.is_set():
            libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)

    th = threading.Thread(target=swapper)
    th.start()
    outcomes = set()
    inside = hashlib.sha256(b"inside swap\n").hexdigest()
    try:
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and len(outcomes) < 2:
            r = run("digest", "--root", tree.root, "swap.txt", "swap.txt", "swap.txt")
            _no_secret_hash(r)
            for d in digests(r):
                assert d["hex"] == inside
                outcomes.add("hashed")
            for rule in r.rules:
                assert rule in ("path.symlink", "io.not-found"), rule
                outcomes.add(rule)
    finally:
        stop.set()
        th.join()
    assert "hashed" in outcomes


def test_odd_names_are_ordinary(tree):
    names = tree.odd_names()
    r = run("digest", "--root", tree.root, "--", *names)
    assert r.exit == 0
    got = {tack.tob(d["path"]): d["hex"] for d in digests(r)}
    assert got == {n: hashlib.sha256(c).hexdigest() for n, c in names.items()}
    r = run("digest", "--root", tree.root, "--", "introspect")
    assert digests(r)[0]["hex"] == hashlib.sha256(names[b"introspect"]).hexdigest()


# --- hostile output sinks and environment -------------------------------------------------

def test_closed_stdout_is_a_write_failure(tree):
    p = subprocess.run(f'"{tack.bin_path("digest")}" --root "{tree.root}" plain.txt >&-',
                       shell=True, capture_output=True, timeout=10)
    assert p.returncode == 1
    assert p.stderr.startswith(b"digest: io.write-failed: ") and p.stderr.count(b"\n") == 1


def test_full_disk_is_a_write_failure(tree):
    with open("/dev/full", "wb") as full:
        p = subprocess.run([tack.bin_path("digest"), "--root", str(tree.root), "plain.txt"],
                           stdout=full, stderr=subprocess.PIPE, timeout=10)
    assert p.returncode == 1 and p.stderr.startswith(b"digest: io.write-failed: ")


def test_closed_pipe_mid_stream_ends_with_exit_1(tmp_path):
    for i in range(3000):
        (tmp_path / f"f{i}").write_bytes(b"x" * i)
    p = subprocess.Popen([tack.bin_path("digest"), "--root", str(tmp_path),
                          *[f"f{i}" for i in range(3000)]],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(100)
    p.stdout.close()
    assert p.wait(timeout=20) == 1
    assert p.stderr.read().startswith(b"digest: io.write-failed: ")


def test_openssl_configuration_is_never_read(tree, tmp_path):
    """The answer depends on the arguments alone: OPENSSL_CONF is not opened, and a config
    that would fail to load changes nothing."""
    bad = tmp_path / "bad.cnf"
    bad.write_text("openssl_conf = nope\n[nope]\nproviders = p\n[p]\nfips = fips_sect\n")
    log = tmp_path / "trace"
    env = {"PATH": "/usr/bin:/bin", "OPENSSL_CONF": str(bad), "OPENSSL_MODULES": "/nonexistent"}
    p = subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", str(log),
                        tack.bin_path("digest"), "--root", str(tree.root), "plain.txt"],
                       capture_output=True, env=env, timeout=30)
    assert p.returncode == 0
    assert "bad.cnf" not in log.read_text() and "openssl.cnf" not in log.read_text()
    base = run("digest", "--root", tree.root, "plain.txt")
    assert p.stdout == base.out


def test_locale_and_tz_do_not_change_the_bytes(tree):
    outs = set()
    # OPENSSL_ia32cap masks CPU features from OpenSSL (here SHA-NI and AVX): the same hash
    for env in ({"PATH": "/usr/bin"},
                {"PATH": "/usr/bin", "LC_ALL": "tr_TR.UTF-8", "TZ": "Asia/Kolkata"},
                {"PATH": "/usr/bin", "LANG": "de_DE.UTF-8", "OPENSSL_ia32cap": "~0x200000200000000"}):
        outs.add(run("digest", "--root", tree.root, "plain.txt", "latin1.txt", env=env).out)
    assert len(outs) == 1


# --- M9: memory flat ----------------------------------------------------------------------

def peak_rss_kib(argv):
    launcher = tack.BIN.parent / "support" / "maxrss"
    if launcher.exists():
        p = subprocess.run([str(launcher), *map(str, argv)], capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr
        return int(p.stdout.split()[-1])
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *map(str, argv)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    return int(p.stderr.split()[-1])


@pytest.fixture(scope="module")
def big_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("digest-m9")
    block = random.Random(1).randbytes(MiB)
    for n in (1, 64, 256):
        with open(d / f"f{n}.bin", "wb") as f:
            for _ in range(n):
                f.write(block)
    return d


@pytest.mark.slow
@pytest.mark.parametrize("algo", ["sha256", "sha512"])
def test_peak_rss_is_flat(big_files, algo):
    rss = {n: peak_rss_kib([tack.bin_path("digest"), "--root", big_files, "--algo", algo,
                            f"f{n}.bin"]) for n in (1, 64, 256)}
    assert max(rss.values()) / min(rss.values()) <= 1.5, rss
    assert max(rss.values()) < 16 * 1024, rss


@pytest.mark.slow
def test_big_file_hash_is_right(big_files):
    r = run("digest", "--root", big_files, "f256.bin", "f64.bin")
    assert (0, "".join(f"{d['hex']}  {d['path']}\n" for d in digests(r)).encode()) == \
        gnu("sha256", ["f256.bin", "f64.bin"], big_files)
    assert end(r)["bytes"] == 320 * MiB


# --- M1: the schema can say no ------------------------------------------------------------

@pytest.mark.parametrize("mutate", [
    lambda d: d.update(hex=d["hex"] * 2),          # sha512's length with algo sha256
    lambda d: d.update(hex=d["hex"].upper()),
    lambda d: d.update(algo="md5"),
    lambda d: d.update(bytes=-1),
    lambda d: d.pop("bytes"),
    lambda d: d.update(extra=1),
], ids=["length-vs-algo", "uppercase", "algo", "negative", "missing", "extra"])
def test_schema_rejects_broken_records(tree, mutate):
    rec = dict(digests(run("digest", "--root", tree.root, "plain.txt"))[0])
    tack.validate("digest", rec)
    mutate(rec)
    with pytest.raises(tack.ContractViolation):
        tack.validate("digest", rec)


# --- M2: same bytes whatever the sink -----------------------------------------------------

def test_same_bytes_in_every_sink(tree):
    for args in (["plain.txt", "missing.txt", "latin1.txt"],
                 ["--format", "text", "--algo", "sha512", "plain.txt", "crlf.txt"]):
        argv = [tack.bin_path("digest"), "--root", str(tree.root), *args]
        seen = {tack.run_sink(argv, sink, env={"PATH": "/usr/bin"}, cwd="/")
                for sink in tack.SINKS}
        assert len(seen) == 1, seen
        assert seen.pop()[1]


@pytest.mark.parametrize("mutate", [
    lambda c: c.update(expected=c["expected"] * 2),  # sha512's length with algo sha256
    lambda c: c.update(actual=c["actual"].upper()),
    lambda c: c.update(verdict="maybe"),
    lambda c: c.update(actual=None),                  # no hash, yet a verdict from one
    lambda c: c.update(verdict="error"),              # an error with a hash
    lambda c: c.update(line=0),
    lambda c: c.pop("bytes"),
    lambda c: c.update(extra=1),
], ids=["length-vs-algo", "uppercase", "verdict", "ok-without-actual", "error-with-actual",
        "line-0", "missing", "extra"])
def test_schema_rejects_broken_check_records(tree, mutate):
    tree.write("p.sums", hashlib.sha256(tack.PLAIN).hexdigest().encode() + b"  plain.txt\n")
    rec = dict(checks(run("digest", "--root", tree.root, "--check", "p.sums"))[0])
    tack.validate("digest", rec)
    mutate(rec)
    with pytest.raises(tack.ContractViolation):
        tack.validate("digest", rec)


def test_check_same_bytes_in_every_sink(tree):
    h = hashlib.sha256(tack.PLAIN).hexdigest()
    tree.write("s.sums", f"{h}  plain.txt\n{h}  missing.txt\nbad\n".encode())
    for args in (["--check", "s.sums"], ["--format", "text", "--check", "s.sums"]):
        argv = [tack.bin_path("digest"), "--root", str(tree.root), *args]
        seen = {tack.run_sink(argv, sink, env={"PATH": "/usr/bin"}, cwd="/")
                for sink in tack.SINKS}
        assert len(seen) == 1, seen


@pytest.mark.slow
def test_check_peak_rss_is_flat_in_the_list_length(tmp_path):
    """A list of 100 000 entries (half failing, so the failed names and error records run up
    to their caps) costs what a list of 1 000 does."""
    (tmp_path / "f").write_bytes(b"x")
    ok = hashlib.sha256(b"x").hexdigest()
    for n in (1000, 100_000):
        with open(tmp_path / f"l{n}", "wb") as f:
            for i in range(n):
                f.write(f"{ok if i % 2 else '0' * 64}  {'f' if i % 4 else f'gone{i}'}\n".encode())
    launcher = str(tack.BIN.parent / "support" / "maxrss")
    rss = {}
    for n in (1000, 100_000):
        p = subprocess.run([launcher, tack.bin_path("digest"), "--root", str(tmp_path), "--check",
                            f"l{n}", "--max-bytes", "16777216"], capture_output=True, timeout=300)
        assert p.returncode == 3, p  # the first entry names a missing file
        rss[n] = int(p.stdout.split()[-1])
    assert rss[100_000] <= 1.5 * rss[1000], rss
    # The answer passes the byte budget's ceiling: its pages, put together, count every entry.
    totals, skip, pages = [0, 0, 0, 0], 0, 0
    while True:
        r = run("digest", "--root", tmp_path, "--check", "l100000", "--max-bytes", "16777216",
                "--skip", str(skip), timeout=300)
        e = r.json[-1]
        totals = [t + e[k] for t, k in zip(totals, ("entries", "passed", "mismatched", "unreadable"))]
        assert len(e["failed"]) == 100
        pages += 1
        if e["next"] is None:
            break
        skip = e["next"]["skip"]
    assert totals == [100_000, 50_000, 25_000, 25_000] and pages > 1
