#!/bin/sh
# fake-tensorscope-cli.sh: a stand-in for `tensorscope-cli run` in UI tests.
#
# It checks its command line the way the real CLI parses it (options
# before the script), prints to stdout and stderr, and writes a known
# trace to the descriptor given by --trace-fd: "TSTRACE" then 100000 zero
# bytes, more than one pipe buffer. FAKE_CLI_MODE picks the behaviour:
#   ok           exit 0 (default)
#   fail         a Python-like traceback pointing at line 3 of the script, exit 3
#   hang         wait until killed
#   ignore-term  ignore SIGTERM and wait, so only SIGKILL ends it
#   lines        1000 numbered lines on stdout

echo "argv: $*"
if [ "$1" != run ]; then
  echo "fake: unknown command $1" >&2
  exit 2
fi
shift

trace_fd=
script=
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus|--gpu-model) shift 2 ;;
    --trace-fd) trace_fd=$2; shift 2 ;;
    --backend=*) echo "backend: ${1#--backend=}"; shift ;;
    --sync|--sanitize) shift ;;
    -*) echo "fake: unknown option $1" >&2; exit 2 ;;
    *) script=$1; break ;;
  esac
done

if [ -z "$script" ] || [ ! -r "$script" ]; then
  echo "fake: cannot read the script '$script'" >&2
  exit 2
fi
echo "script: $(basename "$script")"

if [ -n "$trace_fd" ]; then
  printf 'TSTRACE' >&"$trace_fd"
  head -c 100000 /dev/zero >&"$trace_fd"
fi

case "${FAKE_CLI_MODE:-ok}" in
  ok)
    echo "line 1 to stdout"
    echo "line 2 to stderr" >&2
    echo "line 3 to stdout"
    ;;
  fail)
    echo "before the error"
    echo "Traceback (most recent call last):" >&2
    echo "  File \"$script\", line 3, in <module>" >&2
    echo "RuntimeError: boom" >&2
    exit 3
    ;;
  hang)
    echo "ready"
    exec sleep 60
    ;;
  ignore-term)
    trap '' TERM
    echo "ready"
    exec sleep 60
    ;;
  lines)
    i=1
    while [ $i -le 1000 ]; do
      echo "line $i"
      i=$((i + 1))
    done
    ;;
  *)
    echo "fake: unknown mode $FAKE_CLI_MODE" >&2
    exit 2
    ;;
esac
exit 0
