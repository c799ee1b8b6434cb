#!/usr/bin/env bash
# screenshot.sh BUILDDIR OUT.png [ui-screenshot options: --dark --run --example ID]
# Renders the main window under Xvfb into a PNG, for looking at the UI.
set -euo pipefail

builddir=$(cd "${1:?usage: screenshot.sh BUILDDIR OUT.png [OPTIONS]}" && pwd)
out=${2:?usage: screenshot.sh BUILDDIR OUT.png [OPTIONS]}
shift 2

export GSETTINGS_SCHEMA_DIR="$builddir/data"
export GSETTINGS_BACKEND=memory
export TENSORSCOPE_LOCALEDIR="$builddir/po"
export GTK_A11Y=none
# The workloads run with this build's CLI, not whatever the app finds first.
export TENSORSCOPE_CLI="${TENSORSCOPE_CLI:-$builddir/src/cli/tensorscope-cli}"
exec xvfb-run -a -s "-screen 0 1600x1000x24" "$builddir/tests/ui/ui-screenshot" "$@" "$out"
