#!/usr/bin/env bash
# The main job, offline: start the bundled fixture server (HTTPS, HTTP/2) and run photos
# against its Flickr and jsonplaceholder emulation with a fresh cache.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product photos-fixture-server >/dev/null
swift build --product photos >/dev/null
bin=$(swift build --show-bin-path)

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$bin/photos-fixture-server" --port 0 --latency-ms 20 >"$work/server.json" &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/server.json" ] && break; sleep 0.05; done
url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$work/server.json")
ca=$(sed -n 's/.*"ca_file":"\([^"]*\)".*/\1/p' "$work/server.json")
[ -n "$url" ] || { echo "the fixture server did not start" >&2; exit 1; }

export PHOTOS_CA_BUNDLE="$ca"
export PHOTOS_FLICKR_API="$url/services/rest/"
export PHOTOS_FLICKR_STATIC="$url/flickr-static"
export PHOTOS_PLACEHOLDER_API="$url"
export FLICKR_API_KEY="test-key"
export PHOTOS_CACHE_DIR="$work/cache"
export PHOTOS_CONFIG="$work/none.toml"

run() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$bin/$@"
}

echo "Fixture server at $url (Flickr and jsonplaceholder emulation, 20 ms latency per response)"
run photos list --provider placeholder --per-page 12
run photos list --provider flickr --query dogs
run photos show flickr:53624890009
run photos list --provider all --per-page 4
run photos show placeholder:17 --format json
run photos list --provider flickr --query dogs --format grid --graphics symbols --columns 3
run photos list --provider flickr --query dogs --offline
run photos cache stats
echo
echo "Cache: $(find "$PHOTOS_CACHE_DIR" -type f | wc -l) files under \$PHOTOS_CACHE_DIR"
