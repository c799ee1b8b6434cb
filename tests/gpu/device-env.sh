# tests/gpu/device-env.sh: sourced by device-session.sh and device-recheck.sh on a lent
# GPU machine. Sets up logging to $OUT/log.txt, a fallback that packs $OUT/r after
# PACK_AFTER_S seconds (what a stage overrunning the lease leaves still comes back), and
# unpacks the payload of build-aux/gpu-payload.sh: the programs at their build tree's
# absolute paths (/work/main/BUILD: sources, CUDA module and CLI are found there), the
# libraries the machine lacks (it keeps its own copy of any soname it has) and Debian's
# Python 3.11 standard library. Leaves ROOT, OUT, R, B (the build tree), CLI, PY and stamp.
set -u
ROOT=$(pwd)
OUT=${OUT:-/tmp/ts-device-out}
BUILD=${BUILD:-build}
R=$OUT/r
mkdir -p "$R"
exec > >(tee -a "$OUT/log.txt") 2>&1
T0=$SECONDS
stamp () { echo "== [$((SECONDS - T0)) s] $*"; }
( sleep "$PACK_AFTER_S"; [ -d "$R" ] && tar -C "$OUT" -cJf "$OUT/results-partial.tar.xz" r ) &

stamp "unpack"
mkdir -p /opt/ts && tar -C /opt/ts -xJf .dev/payload.tar.xz
if [ "$ROOT" != /work/main ]; then mkdir -p /work && ln -sfn "$ROOT" /work/main; fi
cp -a /opt/ts/tree/. "$ROOT/"
[ -e /usr/lib/python3.11 ] || cp -a /opt/ts/python/python3.11 /usr/lib/
for lib in /opt/ts/lib/*; do
  if ldconfig -p | grep -q "^[[:space:]]*$(basename "$lib") "; then rm "$lib"; fi
done
echo "libraries brought: $(ls /opt/ts/lib | tr '\n' ' ')"
export LD_LIBRARY_PATH=/opt/ts/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
B=$ROOT/$BUILD
CLI=$B/src/cli/tensorscope-cli
PY=$(command -v python3)
