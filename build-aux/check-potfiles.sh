#!/usr/bin/env bash
# check-potfiles.sh SRCDIR: every file of src/ui, src/render, src/trace and data/ with translatable
# strings must be listed in po/POTFILES.in, or its strings are never translated.
set -euo pipefail
cd "${1:-.}"

status=0
while IFS= read -r file; do
  if ! grep -qxF "$file" po/POTFILES.in; then
    echo "check-potfiles: $file has translatable strings but is missing from po/POTFILES.in"
    status=1
  fi
done < <(grep -rlE '(^|[^a-zA-Z_])(_|N_|C_|ngettext)\s*\(|translatable="yes"' src/ui src/render src/trace data \
           --include='*.c' --include='*.ui' | sort)

while IFS= read -r file; do
  case "$file" in ''|'#'*) continue ;; esac
  if [ ! -f "$file" ]; then
    echo "check-potfiles: po/POTFILES.in lists $file, which does not exist"
    status=1
  fi
done < po/POTFILES.in

exit $status
