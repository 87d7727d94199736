#!/usr/bin/env bash
# Builds photos_VERSION_ARCH.deb in the repository's root folder from a built release binary and the
# generated man pages (make deb runs it after make release and make man): the files of
# `make install PREFIX=/usr`, Depends worked out by dpkg-shlibdeps from the binary, plus the
# libcurl that photos loads at run time (dlopen, which dpkg-shlibdeps cannot see); the imaging
# libraries it loads the same way are recommended.
# Usage: PHOTOS_BIN=... MAN_SOURCE=... [DEB_MAINTAINER='Name <email>'] scripts/make-deb.sh
set -euo pipefail
cd "$(dirname "$0")/.."

: "${PHOTOS_BIN:?the release binary}" "${MAN_SOURCE:?the folder of generated man pages}"
# libcurl 7.87 brought CURLOPT_QUICK_EXIT (7.85, CURLOPT_PROTOCOLS_STR), the newest options photos
# sets: an older libcurl refuses them and every transfer fails.
curl_depends="libcurl4 (>= 7.87.0)"
# Loaded at run time for thumbnails and previews (dlopen): without them grids and browse show
# empty tiles, with a warning naming the package.
# (Named with t64 since Debian 13 and Ubuntu 24.04.)
image_recommends="libchafa0t64 | libchafa0, libglib2.0-0t64 | libglib2.0-0, libturbojpeg0, libpng16-16t64 | libpng16-16, libwebp7"
maintainer=${DEB_MAINTAINER:-"photos developers <photos@localhost>"}

version=$("$PHOTOS_BIN" --version)
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage="$work/photos_${version}_${arch}"

PREFIX=/usr DESTDIR="$stage" ZSH_DIR=share/zsh/vendor-completions GZIP_MAN=1 scripts/install.sh install
# Symbols removed too, as Debian's packages have them: 16 MB. The release link exports none, so a
# crash backtrace of the packaged binary names addresses only (`make install` keeps the symbols).
strip --strip-unneeded "$stage/usr/bin/photos"
install -d "$stage/usr/share/doc/photos"
cat >"$stage/usr/share/doc/photos/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: photos
Source: https://github.com/photos-cli/photos
COPYRIGHT
# Readable by all whatever the umask (cat > made it 0600 under umask 077).
chmod 0644 "$stage/usr/share/doc/photos/copyright"

# dpkg-shlibdeps reads the package's debian/control: give it a minimal one.
mkdir -p "$work/src/debian"
printf 'Source: photos\n\nPackage: photos\nArchitecture: any\n' >"$work/src/debian/control"
shlib_depends=$(cd "$work/src" && dpkg-shlibdeps -O "$stage/usr/bin/photos" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlib_depends" ] || { echo "make-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

install -d "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<CONTROL
Package: photos
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $shlib_depends, $curl_depends
Recommends: $image_recommends, bash-completion, xdg-utils
Section: graphics
Priority: optional
Homepage: https://github.com/photos-cli/photos
Description: list, search, preview and download photos from several providers
 photos is a command-line photo aggregator: several photo providers through
 one model, images over HTTP/2 (libcurl), a disk cache for
 repeated and offline use, and thumbnail grids drawn in the terminal.
CONTROL

dpkg-deb --root-owner-group -Zxz --build "$stage" . >/dev/null
echo "photos_${version}_${arch}.deb"
