#!/bin/sh
# run-fuzzers.sh BUILDDIR: runs every libFuzzer target for a while over its corpus
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# libFuzzer needs clang, so the targets are built in their own build folder
# (build-fuzz) with CC=clang, coverage instrumentation for the whole core
# (-fsanitize=fuzzer-no-link) and ASan/UBSan. Each target runs for
# FUZZ_SECONDS (60 by default) over a scratch copy of its seed corpus, so
# the committed corpus only changes by hand. New crashes are left in
# build-fuzz/crashes/; replay one with the standalone driver:
#   BUILDDIR/fuzz/fuzz-trace-reader-standalone build-fuzz/crashes/crash-...
# Without clang or its libFuzzer runtime (Debian: clang, libclang-rt-14-dev),
# it says so and replays the corpus with the standalone drivers instead.

set -eu

BUILDDIR=${1:-build}
FUZZDIR=${FUZZDIR:-build-fuzz}
SECONDS_EACH=${FUZZ_SECONDS:-60}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
TARGETS="fuzz-trace-reader:trace-reader fuzz-pickle-reader:pickle-reader fuzz-json-reader:json-reader fuzz-cublas-config:cublas-config"

cd "$SRCDIR"

have_libfuzzer() {
    command -v clang >/dev/null 2>&1 || return 1
    tmp=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' > "$tmp/t.c"
    if clang -fsanitize=fuzzer,address "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1; then
        rm -rf "$tmp"; return 0
    fi
    rm -rf "$tmp"; return 1
}

if ! have_libfuzzer; then
    echo "run-fuzzers: clang with libFuzzer not found (install clang and libclang-rt-14-dev);"
    echo "run-fuzzers: replaying the seed corpora with the standalone drivers instead."
    meson compile -C "$BUILDDIR" >/dev/null
    for t in $TARGETS; do
        name=${t%%:*}; corpus=${t#*:}
        "$BUILDDIR/fuzz/$name-standalone" "fuzz/corpus/$corpus"
    done
    exit 0
fi

if [ ! -f "$FUZZDIR/build.ninja" ]; then
    CC=clang meson setup "$FUZZDIR" \
        -Dc_args=-fsanitize=fuzzer-no-link \
        -Db_sanitize=address,undefined -Db_lundef=false \
        -Dgtk=false >/dev/null
fi

mkdir -p "$FUZZDIR/crashes"
status=0
for t in $TARGETS; do
    name=${t%%:*}; corpus=${t#*:}
    meson compile -C "$FUZZDIR" "fuzz/$name" >/dev/null
    work="$FUZZDIR/corpus-$corpus"
    mkdir -p "$work"
    cp -f fuzz/corpus/"$corpus"/* "$work"/ 2>/dev/null || true
    echo "run-fuzzers: $name for ${SECONDS_EACH}s"
    if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
         "$FUZZDIR/fuzz/$name" -max_total_time="$SECONDS_EACH" -max_len=65536 \
            -artifact_prefix="$FUZZDIR/crashes/" -print_final_stats=1 "$work" 2>"$FUZZDIR/$name.log"; then
        echo "run-fuzzers: $name FAILED, see $FUZZDIR/$name.log and $FUZZDIR/crashes/"
        tail -40 "$FUZZDIR/$name.log"
        status=1
    else
        grep -E '^stat::(number_of_executed_units|peak_rss_mb)|cov:' "$FUZZDIR/$name.log" | tail -3
    fi
done
exit $status
