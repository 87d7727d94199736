# photos: build, test, install, package, demo and benchmark. Every target installs missing
# system packages first.
SWIFT ?= swift
BENCH_PACKAGES := hyperfine nghttp2-client wget2 timg curl strace

# make install / uninstall: where photos goes (DESIGN.md, "Install").
PREFIX ?= /usr/local
DESTDIR ?=
# The binary make install installs (the static release build).
PHOTOS_BIN ?= .build/release/photos
# Man pages come from the commands' definitions through swift-argument-parser's generate-manual
# plugin. Their text does not depend on the build configuration: debug is the build that
# make build and make test already have, and it leaves the static release binary alone.
MAN_CONFIGURATION ?= debug
MAN_SOURCE := .build/plugins/GenerateManual/outputs/photos
MAN_DATE ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

.PHONY: all deps build release man install uninstall deb test demo bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The photos binary with the Swift runtime linked in: copy .build/release/photos anywhere.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product photos

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

demo: deps
	@scripts/demo.sh

bench: deps
	@scripts/install-deps.sh $(BENCH_PACKAGES)
	@Benchmarks/run.sh

clean:
	rm -rf .build photos_*.deb
