#!/bin/sh
# make.sh TARGET...: `make TARGET...` from the repository's top directory, on a machine that
# may not have make yet. A fresh Debian 12 has none in its minimal install; it is installed
# first with apt-get (as root), and the Makefile installs the rest. README's two set-up
# commands go through here, so that each works as a machine's first command.
set -e
case "$0" in
  */*) cd "${0%/*}" ;;
esac
if ! command -v make >/dev/null 2>&1; then
  echo "installing: make"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make
fi
exec make "$@"
