#!/bin/sh
# test-render-zh.sh CLI EXAMPLES_DIR LOCALEDIR: `tensorscope-cli render` in
# zh_CN draws Chinese track names, group titles and the memory track's
# legend, read back from the PDF with pdftotext (poppler-utils), and
# `tensorscope-cli memory` explains fragmentation in zh_CN. Without
# pdftotext or a CJK font there is nothing to read back: skipped (77).
set -eu

cli=$1
examples=$2
localedir=$3

if ! command -v pdftotext >/dev/null 2>&1; then
  echo "pdftotext (poppler-utils) is not installed" >&2
  exit 77
fi
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
  echo "no CJK font (fonts-noto-cjk) is installed" >&2
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cli" run --gpus 1 -o "$tmp/trace.tstrace" "$examples/overlap_copy_compute.py" >/dev/null
LANGUAGE=zh_CN LC_ALL=C.UTF-8 TENSORSCOPE_LOCALEDIR=$localedir \
  "$cli" render -o "$tmp/timeline.pdf" "$tmp/trace.tstrace"
pdftotext "$tmp/timeline.pdf" "$tmp/timeline.txt"

status=0
for text in "主机线程 0" "默认流（cuda:0）" "内存（cuda:0）" "已分配" "预留" "阻塞：设备同步"; do
  if ! grep -qF "$text" "$tmp/timeline.txt"; then
    echo "not drawn in zh_CN: $text" >&2
    status=1
  fi
done
# And nothing of it in English.
for text in "Host thread" "Default stream" "Memory (cuda:0)"; do
  if grep -qF "$text" "$tmp/timeline.txt"; then
    echo "drawn in English in zh_CN: $text" >&2
    status=1
  fi
done

# The memory explanation, written by the trace library, in zh_CN too.
"$cli" run --gpus 1 -o "$tmp/frag.tstrace" "$examples/fragmentation.py" >/dev/null 2>&1 || true
LANGUAGE=zh_CN LC_ALL=C.UTF-8 TENSORSCOPE_LOCALEDIR=$localedir \
  "$cli" memory --at=oom -d 0 "$tmp/frag.tstrace" > "$tmp/memory.txt"
for text in "起限制作用的是每进程显存比例" "个段（各 20.0 MiB，大块池" "在该块释放之前无法归还给设备"; do
  if ! grep -qF "$text" "$tmp/memory.txt"; then
    echo "memory explanation not in zh_CN: $text" >&2
    status=1
  fi
done
exit $status
