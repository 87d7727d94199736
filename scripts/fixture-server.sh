# Sourced by the scripts that run photos against the bundled fixture server (demo.sh,
# hot-functions.sh): a work folder, the server in the background, its environment exported.
#
#   . scripts/fixture-server.sh
#   start_fixture_server [SERVER OPTIONS...]   # e.g. --latency-ms 20
#
# Sets `work` (a temporary folder, removed at exit with the server stopped) and `server_url`, and
# exports every provider's endpoint and the test CA, a cache in "$work/cache" and no config file.

start_fixture_server() {
  swift build --product photos-fixture-server >/dev/null
  local server
  server=$(swift build --show-bin-path)/photos-fixture-server
  work=$(mktemp -d)
  fixture_server_pid=""
  trap stop_fixture_server EXIT
  "$server" --port 0 "$@" --env-file "$work/env" >"$work/server.json" &
  fixture_server_pid=$!
  for _ in $(seq 1 200); do [ -s "$work/server.json" ] && [ -s "$work/env" ] && break; sleep 0.05; done
  [ -s "$work/env" ] || { echo "the fixture server did not start" >&2; exit 1; }
  server_url=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$work/server.json")
  set -a
  # shellcheck disable=SC1091
  . "$work/env"
  set +a
  export PHOTOS_CACHE_DIR="$work/cache" PHOTOS_CONFIG=/dev/null
}

stop_fixture_server() {
  [ -n "${fixture_server_pid:-}" ] && kill "$fixture_server_pid" 2>/dev/null && wait "$fixture_server_pid" 2>/dev/null
  rm -rf "$work"
}
