#!/usr/bin/env bash
# The main job: a short real demo of the tools on the sample tree. Each step prints the
# command, then what the tool answered and its exit code.
set -u
bin=${1:-build/bin}
bin=$(cd "$bin" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/sample" "$work/tree"
# A file with one very long line, and a link that points out of the tree.
{ echo "short line"; head -c 5006 /dev/zero | tr '\0' 'x'; echo; echo "after"; } > "$work/tree/long.txt"
echo "secret outside the tree" > "$work/outside.txt"
ln -s ../outside.txt "$work/tree/escape.txt"
cd "$work"

step() {
  echo
  echo "\$ $*"
  "$@"
  echo "(exit $?)"
}

echo "== peek: a range of lines, with numbers, offsets and a cursor to the rest"
step "$bin/peek" --root tree --lines 3:6 src/main.c
echo
echo "== CRLF is reported, and the lines come without their \\r"
step "$bin/peek" --root tree --format text notes.txt
step "$bin/peek" --root tree --lines 2 notes.txt
echo
echo "== a link out of the root is refused, never followed"
step "$bin/peek" --root tree escape.txt
echo
echo "== a line past the cap is named with its length, never clipped; the error carries a repair"
out=$("$bin/peek" --root tree --max-line-bytes 1000 long.txt)
echo "\$ $bin/peek --root tree --max-line-bytes 1000 long.txt"
echo "$out"
echo
echo "== the repair is an argv that runs as it stands: run it"
repair=$(printf '%s' "$out" | python3 -c 'import json,sys; e=json.load(sys.stdin)["error"]; print("\0".join(e["repair"]["argv"]), end="")' | tr '\0' '\n')
mapfile -t argv <<< "$repair"
echo "\$ ${argv[*]}"
"${argv[@]}" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("ok:", d["ok"], "| line 2 is", len(d["data"]["lines"][1]["text"]), "bytes long")'
echo
echo "== list: the tree, depth-first and bytewise; the link is listed, never entered"
step "$bin/list" --root tree --depth 3 --format text
echo
echo "== seek: every match with its line, byte offset and spans; the end record says what was skipped"
step "$bin/seek" --root tree --context 1 hello
echo
echo "== seek in text mode, like grep -n; --regex is RE2 (linear time)"
step "$bin/seek" --root tree --format text --regex 'print[a-z]+'
echo
echo "== replace: exact text, an expected number of times, as a dry run first (exit 9)"
step "$bin/replace" --root tree --old 'hello, %s' --new 'hi, %s' --dry-run --format text src/main.c
step "$bin/replace" --root tree --old 'hello, %s' --new 'hi, %s' src/main.c
echo "(again: already applied, nothing changes)"
step "$bin/replace" --root tree --old 'hello, %s' --new 'hi, %s' src/main.c
echo
echo "== write never writes blindly: without --create or --if-sha256 it refuses"
printf 'new\n' | "$bin/write" --root tree --stdin notes.txt
echo "(exit $?)"
echo
echo "== a misspelt flag gets the nearest one as a repair"
step "$bin/peek" --root tree --lnes 1:2 src/main.c
echo
echo "== counts instead of lines, several patterns in one call"
step "$bin/seek" --root tree --count --format text -e greet -e main
echo
echo "== a checksum list checked in one call (src/main.c was changed above)"
step "$bin/digest" --root tree --check SHA256SUMS --format text
echo
echo "== what an agent reads first: a tool's skill, about a kilobyte"
step "$bin/tally" skill
