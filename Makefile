# photos: build, test, install, package, demo and benchmark. Every target installs missing
# system packages first.
SWIFT ?= swift
BENCH_PACKAGES := hyperfine nghttp2-client wget2 timg curl strace jq valgrind

# make install / uninstall: where photos goes (DESIGN.md, "Install").
PREFIX ?= /usr/local
DESTDIR ?=
# The binary make install installs (the static release build).
PHOTOS_BIN ?= .build/release/photos
# The release build: the Swift runtime linked in, linked by lld with packed relative relocations,
# and not position-independent. A PIE photos has some 100,000 pointers (witness tables, metadata,
# vtables) the loader must patch at every start, and each patched page is a copy-on-write fault:
# about half of `photos --version`. At a fixed address there is nothing to patch: 505 page faults
# become 291 and `photos --version` takes 4.3 ms instead of 6.4 (Benchmarks/README.md). The
# trade: the executable's own image is not randomised (its libraries, heap and stack still are);
# its code is Swift, whose memory safety is the defence that matters here.
# Every function in a section of its own, and the ones common commands run (scripts/hot-functions.txt,
# made by scripts/hot-functions.sh) placed together: Linux maps code in 64 KB runs around each
# page touched, and a listing of 500 had 12.8 MB of photos' code in memory, 6 MB packed
# (`photos --version`: 11.9 MB peak RSS, 8.0 packed).
# Generic types' metadata is reached through direct accessors, not by demangling a name at run
# time (-disable-concrete-type-metadata-mangled-name-accessors): each type so named the first
# time looked up its conformances by scanning every one in the binary, and a cached listing of
# 500 went from 20.8 M to 18.6 M instructions (its JSON lines 39.3 M to 37.0 M, a cold listing
# 146.9 M to 142.4 M; `photos --version` unchanged), for 0.3 MB more code.
# The executable's own symbols are not exported (--no-export-dynamic, after the Swift driver's
# -export-dynamic): nothing loads into photos that looks them up, and their 800 KB table was read
# at every start, each library's symbols being looked for in it first. `photos --version` went
# from 3.67 M to 3.42 M instructions and 268 to 257 page faults, a cached table of 500 from 613
# to 573 page faults.
# Benchmarks/run.sh builds with the same flags.
RELEASE_FLAGS ?= --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-pie \
	-Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xlinker --symbol-ordering-file=$(CURDIR)/scripts/hot-functions.txt -Xlinker --no-warn-symbol-ordering \
	-Xlinker --no-export-dynamic
export RELEASE_FLAGS
# Man pages come from the commands' definitions through swift-argument-parser's generate-manual
# plugin. Their text does not depend on the build configuration: debug is the build that
# make build and make test already have, and it leaves the static release binary alone.
MAN_CONFIGURATION ?= debug
MAN_SOURCE := .build/plugins/GenerateManual/outputs/photos
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

# Fuzzing: libFuzzer, by default in an optimised build with AddressSanitizer. The Swift driver
# keeps only the last -sanitize flag when compiling, hence the combined -Xswiftc one; SwiftPM's
# own flags link the runtimes.
FUZZ_SECONDS ?= 60
FUZZ_CONFIGURATION ?= release
FUZZ_SANITIZERS ?= fuzzer,address
FUZZ_BUILD = $(SWIFT) build --package-path Fuzz -c $(FUZZ_CONFIGURATION) \
	$(foreach sanitizer,$(subst $(comma), ,$(FUZZ_SANITIZERS)),--sanitize=$(sanitizer)) -Xswiftc -sanitize=$(FUZZ_SANITIZERS)
comma := ,

.PHONY: all deps build release man install uninstall deb test demo bench clean fuzz fuzz-build fuzz-ci

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The photos binary with the Swift runtime linked in: copy .build/release/photos anywhere.
release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product photos

# A page per command and subcommand, in $(MAN_SOURCE).
man: deps
	$(SWIFT) package generate-manual --multi-page --configuration $(MAN_CONFIGURATION) --date $(MAN_DATE) >/dev/null

# bin/photos, share/man/man1/photos*.1 and the bash, zsh and fish completions under
# $(DESTDIR)$(PREFIX). Installing for real (no DESTDIR) also installs bash-completion, which
# loads the completion on the first Tab.
install: man release
	@if [ -z "$(DESTDIR)" ]; then scripts/install-deps.sh bash-completion; fi
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" PHOTOS_BIN="$(PHOTOS_BIN)" MAN_SOURCE="$(MAN_SOURCE)" scripts/install.sh install

# Removes exactly what make install put there.
uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh uninstall

# photos_VERSION_ARCH.deb here: the same files under /usr; apt-get install ./photos_*.deb
deb: man release
	@scripts/install-deps.sh dpkg-dev
	PHOTOS_BIN="$(PHOTOS_BIN)" MAN_SOURCE="$(MAN_SOURCE)" scripts/make-deb.sh

# The install test installs the debug binary and the generated man pages into a temporary
# folder, so the pages are generated first (a few seconds once the debug build exists).
test: deps
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory man
	$(SWIFT) test --skip-build

# Every fuzz target for FUZZ_SECONDS each, with the corpus in Fixtures/fuzz/ (see README).
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BIN=Fuzz/.build/$(FUZZ_CONFIGURATION) Fuzz/run.sh

fuzz-build: deps
	$(FUZZ_BUILD)

# What CI runs after make test: every target for 10 s, replaying the committed corpus (crash
# reproducers included) and looking a little further. A debug build with libFuzzer alone: it
# builds in a third of the time of the optimised AddressSanitizer one, and Swift's own checks
# (bounds, overflow, force-unwraps) still trap on the bugs that matter in Swift code.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=10 FUZZ_CONFIGURATION=debug FUZZ_SANITIZERS=fuzzer

demo: deps
	@scripts/demo.sh

# The peer tools from Debian; the save section adds gallery-dl from PyPI (pip, into
# .build/bench-venv: Benchmarks/install-gallery-dl.sh).
bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	@Benchmarks/run.sh

clean:
	rm -rf .build Fuzz/.build photos_*.deb
