#!/usr/bin/env bash
# run-default.sh BUILDDIR: what `make run` does.
#
# With a display, opens the app (uninstalled) on the default example and
# runs it. Without one, runs that example headless with tensorscope-cli and
# renders its timeline: default.tstrace and default.png in the current folder.
set -euo pipefail

builddir=${1:-build}
srcdir=$(cd "$(dirname "$0")/.." && pwd)

# The default example is TS_DEFAULT_EXAMPLE in src/ui/ts-examples.h; its
# script is the File= key of its group in the gallery index.
id=$(sed -n 's/^#define TS_DEFAULT_EXAMPLE "\(.*\)"$/\1/p' "$srcdir/src/ui/ts-examples.h")
file=$(awk -v group="[Example $id]" '
  $0 == group { found = 1; next }
  /^\[/ { found = 0 }
  found && /^File=/ { sub(/^File=/, ""); print; exit }' "$srcdir/data/examples/examples.desktop.in")
script="$srcdir/data/examples/$file"
if [ -z "$id" ] || [ -z "$file" ] || [ ! -f "$script" ]; then
  echo "run-default: cannot find the default example (id '$id', file '$file')" >&2
  exit 1
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$builddir/src/ui/tensorscope" ]; then
  exec "$srcdir/build-aux/run-uninstalled.sh" "$builddir" "$script"
fi

cli="$builddir/src/cli/tensorscope-cli"
if [ ! -x "$cli" ]; then
  echo "run-default: no display, and $cli is not built, so there is nothing to run headless." >&2
  echo "run-default: build tensorscope-cli (src/cli) or run with a display to open the app." >&2
  exit 1
fi

echo "run-default: no display; running $file headless on 4 simulated GPUs"
"$cli" run --gpus 4 -o default.tstrace "$script"
"$cli" render default.tstrace --view timeline -o default.png
echo "run-default: wrote default.tstrace and default.png"
