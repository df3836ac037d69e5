#!/usr/bin/env bash
# run against its incumbents, side by side (output through a pipe, locale pinned), as ratios.
# (bench/run.sh is the suite itself, so run's section has this name.) It drives the test build
# (build/fixture/run), whose programs directory holds the fixture programs; both sides start the
# same static fixture binary.
#
#  1. Start cost: `run -- true` against `timeout 30 true`. Goal <= 1.5x. Timed twice: back to
#     back, and each start 0.1 s after the last, as an agent's calls come. Where run can make a
#     pids cgroup (root on this machine), moving the program into it (cgroup.procs) took the
#     kernel's threadgroup lock for writing, which waits for an RCU grace period unless one has
#     just passed: back to back the starts shared them and the median hid the cost (3.7 ms
#     against timeout's 1.8); after a pause every start paid it (p50 16.3 ms against 3.3,
#     4.9x). The program now joins a v1 cgroup through "tasks" (its one thread, moved without
#     that lock) and is created inside a v2 one (clone3, CLONE_INTO_CGROUP): after a pause,
#     p50 4.5 ms against 2.9. Then the end: nine runs in ten read every process's stat in
#     /proc (perf stat: 96 opens a run), finding the namespace's init still on its way out;
#     the supervisor now gives it a moment (cut short by its pidfd) before any scan: 25 opens
#     a run. Alternating (100 runs back to back, 40 after a pause, p50): 3.27 -> 3.28 -> 2.41
#     ms back to back (timeout 2.07), 14.77 -> 4.52 -> 3.59 ms after a pause (timeout 2.91);
#     this script: 1.49x and 1.46x.
#  2. Throughput: a program writing 64 MiB to standard output, through run (JSON: kept, checked
#     as UTF-8, escaped; text: passed through) against the same program into a pipe. Goal <= 1.3x
#     (JSON <= 1.5x first). JSON keeps each stream ready as it arrives (os/kept: read straight
#     into the kept memory, checked by simdjson and escaped in place while in the cache) and hands
#     the string to the caller's pipe by vmsplice (widened to 1 MiB); text no longer spins on poll
#     while the caller's pipe is full. Measured in one alternating run, at load 8 on 2 cores
#     (other builds): JSON 3.24x (148 ms against 46 ms; the build before, 6.33x), text 1.64x (75
#     ms; before, 2.03x); again at load 5.6, JSON 4.47x (124 ms against 28 ms; before, 7.31x),
#     text 2.58x (before 2.99x); this script as it stands, at load 4.9: JSON 3.49x (115 ms against
#     33 ms), text 2.69x; at load 9-10, JSON 6.72x (before 12.08x), text 4.21x (before 4.73x). CPU
#     per run, perf stat over hyperfine (program, run and reader together): JSON 83 ms (before
#     119), text 49 ms (before 72), the pipe alone 26 ms. Of run's own JSON CPU, 45-60% is the
#     kernel clearing the huge pages the 64 MiB are kept in (this guest clears fresh memory at 4-6
#     GB/s: 64 MiB in 10-16 ms when reused, 175 ms when the host must first back it; in 4 KiB
#     pages 95-360 ms), 9-11% the read's copy, 5-8% the escape search, 3-4% the UTF-8 check:
#     keeping 64 MiB costs more CPU than the pipe's whole run, and on a loaded machine the ratio
#     follows the CPU. On a quiet machine (load 0.0-0.3, this script, two runs): JSON 1.93x and
#     1.74x (74 and 68 ms against 38 and 39 ms), text 1.15x and 1.05x; the JSON goal is not yet
#     met. (A 1 MiB pipe for the program's output is kept from before.)
#  3. Peak RSS of run with a 64 MiB cap while the program writes 64 MiB. Goal: cap + <= 8 MiB.
# Usage: bench/run_tool.sh BIN_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh" run "${1:-build/bin}"
fixture=$(cd "$bin/../fixture" && pwd)
progs=$fixture/programs

echo "run benchmarks ($(uname -r), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo

echo "== start cost: run -- true vs timeout 30 true, 300 runs each (goal <= 1.5x)"
read -r t_run t_timeout <<< "$(timings 30 300 -i "$fixture/run -- true" "timeout 30 $progs/true")"
record run "start: run -- true vs timeout 30 true (goal <= 1.5x)" 1.5
echo "median: run $(ms "$t_run")  timeout $(ms "$t_timeout")  ratio $(ratio "$t_run" "$t_timeout")"
echo

echo "== start cost after a pause: each start 0.1 s after the last, 40 runs each (goal <= 1.5x)"
read -r t_run t_timeout <<< "$(timings 3 40 -i --prepare "sleep 0.1" "$fixture/run -- true" \
  "timeout 30 $progs/true")"
record run "start after a 0.1 s pause: run -- true vs timeout 30 true (goal <= 1.5x)" 1.5
echo "median: run $(ms "$t_run")  timeout $(ms "$t_timeout")  ratio $(ratio "$t_run" "$t_timeout")"
echo

echo "== 64 MiB to standard output: through run vs into a pipe (goal <= 1.3x)"
n=$((64 * 1024 * 1024))
read -r t_json t_pipe <<< "$(timings 3 20 "$fixture/run --max-output $n -- flood $n" "$progs/flood $n")"
record run "64 MiB to stdout: run (JSON) vs a pipe (goal <= 1.3x)" 1.3
read -r t_text t_pipe <<< "$(timings 3 20 "$fixture/run --format text --max-output $n -- flood $n" \
  "$progs/flood $n")"
record run "64 MiB to stdout: run --format text vs a pipe (goal <= 1.3x)" 1.3
echo "run (json) $(ms "$t_json")  run (text) $(ms "$t_text")  pipe $(ms "$t_pipe")"
echo "ratio json $(ratio "$t_json" "$t_pipe")  text $(ratio "$t_text" "$t_pipe")"
echo

echo "== peak RSS of run, 64 MiB cap, 64 MiB written (goal <= 65536 + 8192 KiB)"
kib=$(peak_kib "$fixture/run" --max-output "$n" -- flood "$n")
echo "run: $kib KiB"
record_value run "peak RSS, 64 MiB cap, 64 MiB written" "$kib" KiB "<= 73728 KiB" \
  "$([ "$kib" -le 73728 ] && echo yes || echo no)" "run --max-output $n -- flood $n"
