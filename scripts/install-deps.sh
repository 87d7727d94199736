#!/usr/bin/env bash
# Installs the Debian packages photos builds, runs and tests with (tmux: the grid and completion
# tests; man-db: the man page test; openssl: hashed certificate folders in the transport tests), only those missing; quiet when everything is already there.
# Usage: scripts/install-deps.sh [extra packages...]
set -euo pipefail

packages=(pkg-config libcurl4-openssl-dev libsqlite3-dev libglib2.0-dev libchafa-dev libturbojpeg0-dev libpng-dev libwebp-dev tmux man-db openssl "$@")

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "photos needs these system packages: ${missing[*]} (install them with your package manager)" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo"
echo "Installing system packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  rm -f "$log"
  echo "could not install: ${missing[*]}" >&2
  exit 1
fi
rm -f "$log"
