#!/usr/bin/env bash
# Runs every benchmark program the build produced; each prints its figures.
set -eu
builddir=${1:-build}
status=0
for b in "$builddir"/benchmarks/bench-*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  # The memory scrub benchmark measures widgets: give it a display.
  if [ "$(basename "$b")" = bench-memory-scrub ] && [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1600x1100x24" env GSK_RENDERER=cairo "$b" || status=1
  else
    "$b" || status=1
  fi
done
exit $status
