# Tensorscope: a thin wrapper over meson so that a fresh Debian 12 machine
# needs two commands, `make run` and `make test`. Each target first installs
# whatever Debian packages are missing (quietly when none are) and configures
# build/ when it is not configured yet.

BUILDDIR ?= build
# Link-time optimization lets the per-op path (Python binding, ops, runtime,
# recorder, allocator: separate files) inline across files: about 7% per op.
MESON_OPTIONS ?= -Db_lto=true
XVFB := xvfb-run -a -s "-screen 0 1600x1000x24"

.PHONY: all deps setup build run test bench fuzz clean sanitize

all: build

deps:
	@./build-aux/install-deps.sh

$(BUILDDIR)/build.ninja: | deps
	@meson setup $(BUILDDIR) $(MESON_OPTIONS) >/dev/null || meson setup $(BUILDDIR) $(MESON_OPTIONS)

setup: deps $(BUILDDIR)/build.ninja

build: setup
	@meson compile -C $(BUILDDIR)

# Opens the app on the default example, or, with no display, runs that example
# headless and writes a trace and a PNG next to it.
run: build
	@./build-aux/run-default.sh $(BUILDDIR)

test: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  meson test -C $(BUILDDIR) --print-errorlogs; \
	else \
	  $(XVFB) meson test -C $(BUILDDIR) --print-errorlogs; \
	fi; status=$$?; ./build-aux/test-summary.sh $(BUILDDIR) || status=1; exit $$status

bench: build
	@meson compile -C $(BUILDDIR) benchmarks >/dev/null 2>&1 || true
	@./build-aux/run-benchmarks.sh $(BUILDDIR)

fuzz: build
	@./build-aux/run-fuzzers.sh $(BUILDDIR)

# The whole suite under AddressSanitizer and UBSan, in its own build folder.
sanitize: deps
	@[ -f build-asan/build.ninja ] || meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	@meson compile -C build-asan
	@ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(XVFB) meson test -C build-asan --print-errorlogs --timeout-multiplier 3

clean:
	rm -rf $(BUILDDIR) build-asan
