# photos: build, test, demo and benchmark. Every target installs missing system packages first.
SWIFT ?= swift
BENCH_PACKAGES := hyperfine nghttp2-client wget2 timg curl strace

# Fuzzing: libFuzzer with AddressSanitizer. The Swift driver keeps only the last -sanitize flag
# when compiling, hence the combined -Xswiftc one; SwiftPM's own flags link the runtimes.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := $(SWIFT) build --package-path Fuzz -c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address

.PHONY: all deps build release test demo bench clean fuzz fuzz-build fuzz-ci

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The photos binary with the Swift runtime linked in: copy .build/release/photos anywhere.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product photos

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Every fuzz target for FUZZ_SECONDS each, with the corpus in Fixtures/fuzz/ (see README).
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

fuzz-build: deps
	$(FUZZ_BUILD)

# Every target for 10 s: replays the committed corpus, crash reproducers included, and looks a
# little further. Not part of make test: the sanitizer build would take make test past 20 minutes
# on a 2-core machine.
fuzz-ci:
	$(MAKE) fuzz FUZZ_SECONDS=10

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	@Benchmarks/run.sh

clean:
	rm -rf .build Fuzz/.build
