#!/usr/bin/env bash
# Prints the suite's closing line, "N passed, N failed, N skipped", from
# meson's JSON test log, and exits non-zero when anything failed.
set -eu
log="${1:-build}/meson-logs/testlog.json"
[ -f "$log" ] || { echo "0 passed, 1 failed"; exit 1; }
python3 - "$log" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    result = json.loads(line)["result"]
    if result in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif result == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
