#!/usr/bin/env bash
# Runs every benchmark program the build produced; each prints its figures.
set -eu
builddir=${1:-build}
status=0
for b in "$builddir"/benchmarks/bench-*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
done
exit $status
