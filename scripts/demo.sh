#!/usr/bin/env bash
# The main job, offline: start the bundled fixture server (HTTPS, HTTP/2, every provider's API
# emulated from Fixtures/) and use photos against it as a new user would, with a fresh cache
# and no configuration: first without any key, then with Flickr's.
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --product photos >/dev/null
bin=$(swift build --show-bin-path)

# shellcheck source=scripts/fixture-server.sh
. scripts/fixture-server.sh
start_fixture_server --latency-ms 20
url=$server_url
flickr_key="$FLICKR_API_KEY"
unset FLICKR_API_KEY

run() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  "$bin/$@"
}

echo "Fixture server at $url: Wikimedia Commons, Openverse, NASA, Flickr and jsonplaceholder,"
echo "emulated from recorded-format responses, 20 ms latency per response."
echo
echo "First run, no key, no configuration:"
run photos providers
run photos list --query dogs --per-page 10
run photos show commons:22459639
run photos list --provider openverse --query dogs --filter license_type=commercial --per-page 5
run photos show nasa:as11-40-5874 --format json
run photos list --provider commons --query dogs --format grid --graphics symbols --columns 3 --per-page 10

echo
echo "With a Flickr key (FLICKR_API_KEY):"
export FLICKR_API_KEY="$flickr_key"
run photos list --provider flickr --query dogs --per-page 10
run photos list --provider flickr --query dogs --per-page 10 --offline
run photos cache stats
echo
echo "Cache: $(find "$PHOTOS_CACHE_DIR" -type f | wc -l) files under \$PHOTOS_CACHE_DIR"
