#!/usr/bin/env bash
# Installs gallery-dl, the Python peer of the save benchmark, from PyPI into a virtual
# environment of its own (not the system's Python): quiet when that version is already there.
# Usage: Benchmarks/install-gallery-dl.sh [VENV]   (default .build/bench-venv)
# Exits non-zero with one line saying why when it cannot (no python3 venv, PyPI out of reach).
set -euo pipefail

VERSION=1.32.18
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-$ROOT/.build/bench-venv}

installed() {
  [ "$("$venv/bin/python" -c 'from gallery_dl.version import __version__; print(__version__)' 2>/dev/null)" = "$VERSION" ]
}
installed && exit 0

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "Installing gallery-dl $VERSION from PyPI into $venv" >&2
if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv" >"$log" 2>&1; then
  cat "$log" >&2
  echo "python3 -m venv failed (on Debian: apt-get install python3-venv)" >&2
  exit 1
fi
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --retries 1 --timeout 20 \
  "gallery-dl==$VERSION" >"$log" 2>&1; then
  cat "$log" >&2
  echo "pip could not install gallery-dl==$VERSION from PyPI" >&2
  exit 1
fi
installed || { echo "gallery-dl $VERSION is not importable from $venv after pip install" >&2; exit 1; }
