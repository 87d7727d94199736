# photos: build, test, demo and benchmark. Every target installs missing system packages first.
SWIFT ?= swift
BENCH_PACKAGES := hyperfine nghttp2-client wget2 timg curl strace

.PHONY: all deps build release test demo bench clean

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

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	@Benchmarks/run.sh

clean:
	rm -rf .build
