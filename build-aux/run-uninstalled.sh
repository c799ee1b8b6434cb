#!/usr/bin/env bash
# run-uninstalled.sh BUILDDIR [ARGS...]: runs the tensorscope app from the
# build folder, with the GSettings schema and translations of that folder.
set -euo pipefail

builddir=${1:?usage: run-uninstalled.sh BUILDDIR [ARGS...]}
shift
builddir=$(cd "$builddir" && pwd)
app="$builddir/src/ui/tensorscope"

if [ ! -x "$app" ]; then
  echo "run-uninstalled: $app is not built (configure with -Dgtk=true and run meson compile)" >&2
  exit 1
fi
if [ ! -f "$builddir/data/gschemas.compiled" ]; then
  echo "run-uninstalled: $builddir/data/gschemas.compiled is missing; run meson compile -C $builddir" >&2
  exit 1
fi

export GSETTINGS_SCHEMA_DIR="$builddir/data${GSETTINGS_SCHEMA_DIR:+:$GSETTINGS_SCHEMA_DIR}"
export TENSORSCOPE_LOCALEDIR="$builddir/po"
# The app finds src/cli/tensorscope-cli next to itself; say it anyway.
if [ -z "${TENSORSCOPE_CLI:-}" ] && [ -x "$builddir/src/cli/tensorscope-cli" ]; then
  export TENSORSCOPE_CLI="$builddir/src/cli/tensorscope-cli"
fi

exec "$app" "$@"
