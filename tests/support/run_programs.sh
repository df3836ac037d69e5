#!/usr/bin/env bash
# run_programs.sh PROGRAM DIR — fills run's fixture programs directory: links to the one
# fixture binary under each behaviour's name, a shell script, and the entries that are not
# programs (a file without the execute bit, a dangling link, garbage with the execute bit, a
# directory, a hidden file), and the deployer's policy file.
set -euo pipefail
prog=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
for name in echo true false exit cat args env pwd both flood flood-err flood-both longline \
            binary closeout sleep hang readall deaf stopper orphan forkbomb write tmpwrite \
            inet inet6 unix connect signal segv setsid-child netok scribe brood; do
  ln -s "$prog" "$dir/$name"
done
printf '#!/bin/sh\necho "script says $1"\n' > "$dir/script"
chmod 755 "$dir/script"
printf 'not a program\n' > "$dir/notexec"
chmod 644 "$dir/notexec"
ln -s "$dir/no-such-target" "$dir/dangling"
printf '\x7fELF garbage that no kernel will load\n' > "$dir/garbage"
chmod 755 "$dir/garbage"
mkdir "$dir/subdir"
cp "$prog" "$dir/.hidden"
# The deployer's policy: netok may use the network, scribe may also write beneath extra/.
extra=$(cd "$dir/.." && pwd)/extra
rm -rf "$extra"
mkdir -p "$extra"
cat > "$dir/.policy" <<POLICY
# fixture policy: what these programs may have beyond run's default confinement
netok network
scribe write $extra
scribe network please   # a line of another shape grants nothing
POLICY
