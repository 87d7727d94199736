#!/usr/bin/env bash
# Benchmarks of photos against its goals and peer tools, on the local fixture server.
# See Benchmarks/README.md.
#
#   Benchmarks/run.sh                      # every section (what `make bench` runs)
#   BENCH=list,cache Benchmarks/run.sh     # only the named sections (comma or space separated)
#   RUNS=9 Benchmarks/run.sh               # timed runs per transport measurement (default 5); the
#                                          # sections of short commands (list, cache, grid) run 4x
#   SKIP_BUILD=1 Benchmarks/run.sh         # reuse the release binaries already built
#   BENCH_OUT_ROOT=DIR Benchmarks/run.sh   # where downloaded files go (default /dev/shm, a tmpfs,
#                                          # so that disk latency does not drown the transport)
#
# Prints one report: a table per section, then every goal with its measured value and ok/MISSED.
# The report and the raw JSON of every measurement go to Benchmarks/results/latest.txt.
# Exits 0 when every selected section ran, whatever the goals; non-zero when one could not run.
#
# Adding a section: write a function `bench_NAME` that times commands with `measure` (one JSON
# line each in "$RAW"), then prints its table with `report` (whose Python reads the measurements
# with rows() and records each goal with goal()), and add NAME to SECTIONS. Each section runs in
# a subshell: the servers it starts and the variables it exports end with it.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SWIFT=${SWIFT:-swift}
RUNS=${RUNS:-5}
FAST_RUNS=$((RUNS * 4))
BENCH=${BENCH:-all}
SECTIONS=(transport list cache grid providers save browse cost)
# photos' default cap of connections per host (TransportConfiguration.defaultMaxConnectionsPerHost).
CONNECTIONS_CAP=6
PRODUCTS=(photos photos-fixture-server photos-grid-sample)

RESULTS="$BENCH_DIR/results"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/photos-bench.XXXXXX")
OUT_ROOT=${BENCH_OUT_ROOT:-/dev/shm}
[ -d "$OUT_ROOT" ] && [ -w "$OUT_ROOT" ] || OUT_ROOT=$WORK
OUT_BASE=""
REPORT="$WORK/report.txt"
RAW="$WORK/raw.jsonl"
GOALS="$WORK/goals.jsonl"
SERVER_PIDS=()
CA_INSTALLED=""
SYSTEM_CA_PATH=/usr/local/share/ca-certificates/photos-test-ca.crt
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"

# Stops the fixture servers and removes the test CA from the system store, if this shell (the
# main script or a section's subshell) started or installed them.
release_resources() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PIDS=()
  if [ -n "$CA_INSTALLED" ]; then
    $SUDO rm -f "$SYSTEM_CA_PATH"
    $SUDO update-ca-certificates >/dev/null 2>&1 || echo "warning: update-ca-certificates failed; run it to drop the test CA" >&2
    CA_INSTALLED=""
  fi
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  release_resources
  rm -rf "$WORK"
  [ -n "$OUT_BASE" ] && rm -rf "$OUT_BASE"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() { printf '%s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# Every number must come from this script's settings alone: no user config, cache or overrides.
while IFS= read -r variable; do
  unset "$variable"
done < <(compgen -e | grep -E '^(PHOTOS_|FLICKR_)' || true)
export PHOTOS_CONFIG=/dev/null PHOTOS_CACHE_DIR="$WORK/cache"

# MARK: Building

# build_root [SWIFT BUILD OPTIONS]: the root package's benchmarked products, release.
build_root() {
  local product
  for product in "${PRODUCTS[@]}"; do
    (cd "$ROOT" && $SWIFT build -c release "$@" --product "$product" >&2) || return 1
  done
}

build() {
  if [ -n "${SKIP_BUILD:-}" ]; then
    log "== reusing release binaries (SKIP_BUILD)"
  else
    # With the Swift runtime linked in, no shared Swift libraries are loaded and relocated at each
    # start: a large part of a short command's time and memory.
    log "== building release binaries (${PRODUCTS[*]}) with the static Swift runtime"
    # The Makefile's RELEASE_FLAGS, which `make bench` passes on.
    local flags=${RELEASE_FLAGS:---static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-pie \
      -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
      -Xlinker --symbol-ordering-file=$ROOT/scripts/hot-functions.txt -Xlinker --no-warn-symbol-ordering -Xlinker --no-export-dynamic}
    # shellcheck disable=SC2086 # the flags are a list of options
    if ! build_root $flags; then
      log "== the --static-swift-stdlib build failed; building with the shared Swift runtime"
      flags=""
      build_root || { log "the release build failed"; exit 1; }
    fi
    # The helpers are built as photos is: transport-fetch stands for photos' own transport, and
    # with the shared runtime it would pay about 7 ms and 8 MB more at start than photos does.
    # shellcheck disable=SC2086
    $SWIFT build -c release --package-path "$BENCH_DIR" $flags >&2 || { log "the benchmark helpers did not build"; exit 1; }
  fi
  BIN=$(cd "$ROOT" && $SWIFT build -c release --show-bin-path)
  BENCH_BIN=$($SWIFT build -c release --package-path "$BENCH_DIR" --show-bin-path)
  PHOTOS="$BIN/photos"
  FIXTURE_SERVER="$BIN/photos-fixture-server"
  GRID_SAMPLE="$BIN/photos-grid-sample"
  URLSESSION_FETCH="$BENCH_BIN/urlsession-fetch"
  RUSAGE_EXEC="$BENCH_BIN/rusage-exec"
  TRANSPORT_FETCH="$BENCH_BIN/transport-fetch"
  local binary
  for binary in "$PHOTOS" "$FIXTURE_SERVER" "$GRID_SAMPLE" "$URLSESSION_FETCH" "$RUSAGE_EXEC" "$TRANSPORT_FETCH"; do
    [ -x "$binary" ] || { log "missing $binary (build without SKIP_BUILD)"; exit 1; }
  done
  if ldd "$PHOTOS" 2>/dev/null | grep -q libswiftCore; then
    RUNTIME="shared Swift runtime"
  else
    RUNTIME="static Swift runtime"
  fi
}

# MARK: Helpers

# start_server LATENCY_MS [FIXTURES]: starts a fixture server (on Fixtures/ unless another folder
# is given), sets SERVER_URL and SERVER_CA.
start_server() {
  local ready="$WORK/server-$1-$BASHPID.json" errors="$WORK/server-$1-$BASHPID.log"
  SERVER_ENV="$WORK/server-$1-$BASHPID.env"
  "$FIXTURE_SERVER" --port 0 --fixtures "${2:-$ROOT/Fixtures}" --latency-ms "$1" --env-file "$SERVER_ENV" >"$ready" 2>"$errors" &
  local pid=$!
  SERVER_PIDS+=("$pid")
  for _ in $(seq 1 300); do
    [ -s "$ready" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$errors" >&2; log "fixture server exited"; return 1; }
    sleep 0.1
  done
  [ -s "$ready" ] || { log "fixture server not ready after 30 s"; return 1; }
  SERVER_URL=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$ready")
  SERVER_CA=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["ca_file"])' "$ready")
}

# install_test_ca CA_FILE: trusts the test CA system-wide until the section ends (URLSession on
# Linux reads only the system store). Returns non-zero when that is not possible.
install_test_ca() {
  [ -n "$CA_INSTALLED" ] && return 0
  have update-ca-certificates || return 1
  [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ] || return 1
  CA_INSTALLED=1 # set first: an interrupted install is still undone by the cleanup
  $SUDO cp "$1" "$SYSTEM_CA_PATH" && $SUDO update-ca-certificates >/dev/null 2>&1
}

# measure NAME [measure.py options] -- COMMAND...: RUNS timed runs after one warm-up (later
# --runs / --warmup options win), one JSON line appended to $RAW. A run that fails is reported in
# the section's table (measure.py marks the measurement "ok": false), not here.
measure() {
  local name=$1
  shift
  log "   $name"
  local status=0
  python3 "$BENCH_DIR/measure.py" --name "$name" --runs "$RUNS" --warmup 1 \
    --rusage-exec "$RUSAGE_EXEC" "$@" >>"$RAW" || status=$?
  case $status in
    0) ;;
    1) log "   $name: some runs failed (see the raw JSON)" ;;
    *) exit "$status" ;; # interrupted, or measure.py itself failed
  esac
}

# measure_together NAME [OPTIONS] -- COMMAND ... ::: NAME [OPTIONS] -- COMMAND ...: like measure,
# for commands compared with each other. measure.py runs them side by side, one run of each per
# round, so that a slow moment of the shared machine does not fall on one of them only.
measure_together() {
  local args=() names=() expect_name=1 argument
  for argument in "$@"; do
    if ((expect_name)); then
      args+=(--name "$argument")
      names+=("$argument")
      expect_name=0
    else
      args+=("$argument")
      [[ $argument == ":::" ]] && expect_name=1
    fi
  done
  log "   ${names[*]} (side by side)"
  local status=0
  python3 "$BENCH_DIR/measure.py" --runs "$RUNS" --warmup 1 --rusage-exec "$RUSAGE_EXEC" "${args[@]}" >>"$RAW" || status=$?
  case $status in
    0) ;;
    1) log "   ${names[*]}: some runs failed (see the raw JSON)" ;;
    *) exit "$status" ;;
  esac
}

# The Python helpers every section's report starts with: rows(section) reads this section's
# measurements from $RAW, goal(...) appends one goal to $GOALS, failed(row) flags failed runs.
REPORT_LIB='
import json, os, sys
RAW, GOALS = os.environ["RAW"], os.environ["GOALS"]

def rows(section):
    found = {}
    for line in open(RAW):
        entry = json.loads(line)
        if entry["note"].split(";")[0] == "section=" + section:
            found[entry["name"]] = entry
    return found

def goal(issue, text, measured, ok):
    """ok: True, False, or None when it could not be measured."""
    with open(GOALS, "a") as handle:
        handle.write(json.dumps({"issue": issue, "goal": text, "measured": measured, "ok": ok}) + "\n")

def mark(ok):
    return "n/a" if ok is None else ("ok" if ok else "MISSED")

def failed(row):
    """A flag for the table: runs that exited non-zero or wrote the wrong number of files."""
    runs = row["runs"]
    bad = [d for d in row["details"] if d["exit"] != 0]
    if bad:
        return f"  FAILED {len(bad)} of {runs} runs"
    return "" if row["ok"] else "  FAILED (files missing)"
'

# report [ARGS...] <<'PY' ... PY: runs the Python report script on stdin after REPORT_LIB, with
# sys.argv[1:] = ARGS; its output is appended to the report.
report() {
  local script
  script=$(cat)
  RAW="$RAW" GOALS="$GOALS" python3 -c "$REPORT_LIB
$script" "$@" >>"$REPORT"
}

# MARK: Sections

# Issue 2. Downloads 1000 distinct thumbnails (5-20 KB) from one host with 50 ms server latency
# and the server's 100-stream limit, writing each body to a file, with photos and with peers.
bench_transport() {
  local count=1000 latency=50 streams=100
  log "== transport: $count files, ${latency} ms latency, $streams streams per connection"
  start_server "$latency"
  local url=$SERVER_URL ca=$SERVER_CA
  start_server 0
  local url0=$SERVER_URL
  export PHOTOS_CA_BUNDLE="$ca"

  local dir="$WORK/transport" out="$OUT_BASE/transport"
  mkdir -p "$dir"
  python3 - "$url" "$url0" "$count" "$dir" "$out" <<'PY'
import sys
url, url0, count, directory, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
for name, base in (("urls.txt", url), ("urls0.txt", url0)):
    with open(f"{directory}/{name}", "w") as handle:
        handle.writelines(f"{base}/thumbs/{n}.jpg\n" for n in range(count))
for name, base in (("curl.cfg", url), ("curl0.cfg", url0)):
    with open(f"{directory}/{name}", "w") as handle:
        for n in range(count):
            handle.write(f'url = "{base}/thumbs/{n}.jpg"\noutput = "{out}/{n:05d}"\n')
PY

  local common=(--stats-url "$url" --ca-file "$ca" --fresh-dir "$out" --expect-files "$count" --note "section=transport")
  local c0=(--stats-url "$url0" --ca-file "$ca" --fresh-dir "$out" --expect-files "$count" --note "section=transport;0ms")

  # photos and the peers it is compared with, side by side.
  local peers=(photos "${common[@]}" -- "$TRANSPORT_FETCH" --urls "$dir/urls.txt" --out "$out"
    ::: curl "${common[@]}" -- curl -s --no-progress-meter --parallel --parallel-max "$streams" --cacert "$ca" -K "$dir/curl.cfg")
  if install_test_ca "$ca"; then
    peers+=(::: URLSession "${common[@]}" -- "$URLSESSION_FETCH" --urls "$dir/urls.txt" --out "$out" --connections-per-host "$streams")
  else
    log "   URLSession: skipped (cannot add the test CA to the system store without root)"
  fi
  if have wget2; then
    peers+=(::: wget2 "${common[@]}" -- wget2 -q --no-config --http2 --max-threads=5 --http2-request-window="$streams"
      --ca-certificate="$ca" --no-ocsp --no-hsts --robots=off --no-directories -P "$out" -i "$dir/urls.txt")
  fi
  measure_together "${peers[@]}"
  if have h2load; then
    measure "h2load" --stats-url "$url" --ca-file "$ca" --note "section=transport;no files written" -- \
      h2load -n "$count" -c 1 -m "$streams" -i "$dir/urls.txt"
  fi
  measure_together "photos@0ms" "${c0[@]}" -- "$TRANSPORT_FETCH" --urls "$dir/urls0.txt" --out "$out" \
    ::: "curl@0ms" "${c0[@]}" -- curl -s --no-progress-meter --parallel --parallel-max "$streams" --cacert "$ca" -K "$dir/curl0.cfg"

  report "$count" "$streams" "$latency" "$CONNECTIONS_CAP" <<'PY'
import math
count, streams, latency, cap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = rows("transport")
photos = rows["photos"]
p = photos["median_wall_ms"]
notes = {
    "photos": f"photos' transport (Benchmarks/transport-fetch: libcurl multi, connections by need, up to {cap} per host)",
    "curl": "--parallel --parallel-max %d" % streams,
    "URLSession": "FoundationNetworking (libcurl), httpMaximumConnectionsPerHost %d" % streams,
    "wget2": "--http2 --max-threads=5 (one connection per thread)",
    "h2load": "-c 1 -m 100, no files written: one-connection reference",
    "photos@0ms": "same job, server without latency",
    "curl@0ms": "same job, server without latency",
}
# Per peer: (issue, goal) pairs; the table marks the strictest.
goals = {"curl": [(2, 0.9), (13, 0.5)], "URLSession": [(2, 0.2)], "wget2": [(13, 1.1)]}
print(f"== transport (issues 2, 13): {count} distinct thumbnails (5-20 KB), {latency} ms server latency, "
      f"{streams} streams per connection, median of {photos['runs']} runs")
print()
header = f"{'tool':<12} {'median ms':>10} {'min..max ms':>15} {'conns':>6} {'peak RSS MB':>12}  {'photos/peer':<20} notes"
print(header)
print("-" * len(header))
for name in ("photos", "curl", "URLSession", "wget2", "h2load", "photos@0ms", "curl@0ms"):
    if name not in rows:
        continue
    row = rows[name]
    m = row["median_wall_ms"]
    if name.endswith("@0ms"):
        ratio = f"{rows['photos@0ms']['median_wall_ms'] / m:.2f}" if name != "photos@0ms" and "photos@0ms" in rows else ""
    else:
        ratio = "" if name == "photos" else f"{p / m:.2f}"
    if name in goals:
        strictest = min(limit for _, limit in goals[name])
        ratio += f" ({mark(p / m <= strictest)}: <={strictest})"
    conns = "-" if row["connections"] is None else str(row["connections"])
    print(f"{name:<12} {m:>10.0f} {row['min_wall_ms']:>7.0f}..{row['max_wall_ms']:<7.0f}"
          f" {conns:>6} {row['peak_rss_mb']:>12.1f}  {ratio:<20} {notes.get(name, '')}{failed(row)}")
print()
rounds = math.ceil(count / streams)
latency_floor = rounds * latency
zeros = {name: rows[name]["median_wall_ms"] for name in ("photos@0ms", "curl@0ms") if name in rows}
best = min(zeros, key=zeros.get) if zeros else None
transfer = zeros[best] if best else 0.0
floor = latency_floor + transfer
print(f"one-connection latency floor: ceil({count}/{streams}) x {latency} ms = {latency_floor} ms, plus transfer time "
      f"{transfer:.0f} ms = {floor:.0f} ms")
print(f"  transfer time = the fastest median of the same job against a server without latency ({best}):")
print("  process start, TLS handshake, 1000 streams and 1000 files. A client that overlaps transfers")
print("  with the waits, or uses more connections, can beat this floor.")
print(f"photos / floor: {p:.0f} / {floor:.0f} = {p / floor:.2f} (goal <= 1.5: {mark(p / floor <= 1.5)})")
conns = photos["connections"]
needed = min(cap, math.ceil(count / streams))
conns_ok = conns is not None and 1 <= conns <= needed
print(f"photos connections: {conns} (connections by need: at most min({cap}, ceil({count}/{streams})) = {needed}: "
      f"{mark(conns_ok)})")
rss = photos["peak_rss_mb"]
print(f"photos peak RSS: {rss:.1f} MB (goal <= 40 MB: {mark(rss <= 40)}; the RSS column cannot go below "
      f"{photos['rss_floor_mb']:.1f} MB, what /bin/true shows)")
print()
for name, limits in goals.items():
    for issue, limit in limits:
        if name in rows:
            value = p / rows[name]["median_wall_ms"]
            goal(issue, f"1000 files: photos / {name} <= {limit}", f"{value:.2f} ({p:.0f} / {rows[name]['median_wall_ms']:.0f} ms)",
                 value <= limit)
        else:
            goal(issue, f"1000 files: photos / {name} <= {limit}", f"{name} not run", None)
goal(2, "1000 files: photos / one-connection latency floor <= 1.5", f"{p / floor:.2f} ({p:.0f} / {floor:.0f} ms)", p / floor <= 1.5)
goal(13, f"1000 files: connections by need, at most {needed}", str(conns), conns_ok)
goal(2, "1000 files: photos peak RSS <= 40 MB", f"{rss:.1f} MB", rss <= 40)
PY
}

# Issue 3. A cold `photos list --per-page 100` with thumbnails, against a server that waits 50 ms
# before every response: at best one listing response, then one round of 100 parallel
# thumbnails, i.e. 100 ms.
bench_list() {
  local latency=50 per_page=100
  log "== list: cold photos list --per-page $per_page with thumbnails, ${latency} ms latency"
  start_server "$latency"
  local url=$SERVER_URL ca=$SERVER_CA
  export PHOTOS_CA_BUNDLE="$ca" PHOTOS_PLACEHOLDER_API="$url" PHOTOS_FLICKR_API="$url/services/rest/" \
    PHOTOS_FLICKR_STATIC="$url/flickr-static" FLICKR_API_KEY=test-key PHOTOS_CACHE_DIR="$WORK/list-cache"
  local cold=(--runs "$FAST_RUNS" --stats-url "$url" --ca-file "$ca" --fresh-dir "$PHOTOS_CACHE_DIR" --note "section=list")

  measure "photos --version" --runs "$FAST_RUNS" --warmup 3 --note "section=list;process start" -- "$PHOTOS" --version
  measure "placeholder" "${cold[@]}" -- "$PHOTOS" list --provider placeholder --per-page "$per_page" --format json
  # Flickr joins when its emulation serves a full page (the recorded search has 10 per page).
  local flickr_count
  rm -rf "$PHOTOS_CACHE_DIR"
  flickr_count=$("$PHOTOS" list --provider flickr --query dogs --per-page "$per_page" --no-thumbnails --format json |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["photos"]))') || flickr_count=0
  if [ "$flickr_count" -eq "$per_page" ]; then
    measure "flickr dogs" "${cold[@]}" -- "$PHOTOS" list --provider flickr --query dogs --per-page "$per_page" --format json
  else
    log "   flickr: skipped (its emulation serves $flickr_count photos per page, not $per_page)"
  fi

  report "$latency" "$per_page" "$flickr_count" <<'PY'
latency, per_page, flickr_count = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = rows("list")
floor = 2 * latency
start = rows["photos --version"]
print(f"== list (issue 3): cold `photos list --per-page {per_page} --format json` with thumbnails, empty cache "
      f"each run, {latency} ms server latency, median of {start['runs']} runs")
print()
header = (f"{'provider':<13} {'median ms':>10} {'min..max ms':>15} {'conns':>6} {'requests':>9} {'CPU ms':>7} "
          f"{'peak RSS MB':>12}  {'/ floor':<18}")
print(header)
print("-" * len(header))
for name in ("placeholder", "flickr dogs"):
    if name not in rows:
        continue
    row = rows[name]
    m = row["median_wall_ms"]
    ratio = m / floor
    print(f"{name:<13} {m:>10.0f} {row['min_wall_ms']:>7.0f}..{row['max_wall_ms']:<7.0f} {row['connections']!s:>6} "
          f"{row['requests']!s:>9} {row['median_cpu_ms']:>7.0f} {row['peak_rss_mb']:>12.1f}  "
          f"{ratio:.2f} ({mark(ratio <= 2.0)}: <=2.0){failed(row)}")
    goal(3, f"cold list of 100 ({name}) / 100 ms latency floor <= 2.0", f"{ratio:.2f} ({m:.0f} ms)", ratio <= 2.0 and row["ok"])
    goal(3, f"cold list of 100 ({name}): 1 connection per host", str(row["connections"]), row["connections"] == 1)
print()
print(f"latency floor: one listing response + one round of {per_page} parallel thumbnail responses = "
      f"2 x {latency} ms = {floor} ms")
print(f"  requests = the listing + one per distinct thumbnail (photo 77 of the placeholder data has none)")
print(f"process start: `photos --version` {start['median_wall_ms']:.1f} ms median, {start['median_cpu_ms']:.1f} ms CPU, "
      f"{start['peak_rss_mb']:.1f} MB peak RSS; part of every figure above")
if "flickr dogs" not in rows:
    print(f"flickr: not measured, its emulation serves {flickr_count} photos per page for --query dogs, not {per_page}")
print()
PY
}

# Issue 4. The disk cache: a warm `photos list --offline` of a cached 100-photo page against the
# cold run, the same with 100,000 photos in the index, and no folder listing on the warm path.
bench_cache() {
  log "== cache: warm photos list --offline of a cached 100-photo page"
  start_server 0
  local url=$SERVER_URL ca=$SERVER_CA
  export PHOTOS_CA_BUNDLE="$ca" PHOTOS_PLACEHOLDER_API="$url" TERM=dumb
  local list=("$PHOTOS" list --provider placeholder --per-page 100 --format json)
  local stats=(--stats-url "$url" --ca-file "$ca")
  local small="$WORK/cache-small" big="$WORK/cache-100k"

  # Cold: empty cache, listing and 100 thumbnails over the network (no added latency).
  export PHOTOS_CACHE_DIR="$small"
  measure "cold" --runs "$FAST_RUNS" "${stats[@]}" --fresh-dir "$small" --note "section=cache" -- "${list[@]}"
  "${list[@]}" >/dev/null
  measure "warm --offline" --runs "$FAST_RUNS" --warmup 3 "${stats[@]}" --note "section=cache" -- "${list[@]}" --offline

  # The same cache with 100,000 more photos (1,000 listings of 100) and 100,000 image rows.
  cp -r "$small" "$big"
  log "   filling the index with 100,000 photos"
  python3 - "$big/index.sqlite" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
assert db.execute("PRAGMA user_version").fetchone()[0] >= 1, "unknown cache schema"
now = time.time() - 3600
with db:
    for listing in range(1000):
        key = f"flickr\x1fq=bench{listing}\x1f\x1f1\x1f100"
        cursor = db.execute(
            "INSERT INTO listing (key, search_key, provider, query_text, filters, page, per_page, total, has_more,"
            " photo_count, stored_at, fetched_at, last_access) VALUES (?, ?, 'flickr', ?, '', 1, 100, 100, 0, 100, ?, ?, ?)",
            (key, key.rsplit("\x1f", 2)[0], f"bench{listing}", now, now, now))
        lid = cursor.lastrowid
        rows = []
        for position in range(100):
            pid = f"flickr:{listing * 100 + position + 10**10}"
            rows.append((pid, pid[7:], f"photo {pid}", f"https://img.example/{pid[7:]}_q.jpg", now))
        db.executemany(
            "INSERT INTO photo (id, provider, raw, title, thumbnail_url, updated_at) VALUES (?, 'flickr', ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO listing_photo (listing_id, position, photo_id) VALUES (?, ?, ?)",
                       [(lid, position, row[0]) for position, row in enumerate(rows)])
        db.executemany(
            "INSERT INTO image (url, path, size, provider, created_at, last_access) VALUES (?, ?, 1000, 'flickr', ?, ?)",
            [(row[3], f"images/00/bench-{row[1]}.jpg", now, now) for row in rows])
PY
  export PHOTOS_CACHE_DIR="$big"
  "${list[@]}" --offline >/dev/null
  measure "warm --offline, 100k index" --runs "$FAST_RUNS" --warmup 3 "${stats[@]}" --note "section=cache" -- "${list[@]}" --offline

  # Folder listings on the warm path (strace counts getdents64 calls), when strace can run here.
  local getdents=""
  export PHOTOS_CACHE_DIR="$small"
  if have strace && strace -f -c -e trace=getdents64,getdents -o "$WORK/strace.txt" "${list[@]}" --offline >/dev/null 2>&1; then
    getdents=$(awk '/getdents/ {calls += $4} END {print calls + 0}' "$WORK/strace.txt")
  fi

  report "$getdents" <<'PY'
getdents = sys.argv[1]
rows = rows("cache")
cold, warm, big = rows["cold"], rows["warm --offline"], rows["warm --offline, 100k index"]
c, w, b = cold["median_wall_ms"], warm["median_wall_ms"], big["median_wall_ms"]
print(f"== cache (issue 4): `photos list --provider placeholder --per-page 100 --format json`, "
      f"server without latency, median of {warm['runs']} runs")
print()
header = f"{'run':<28} {'median ms':>10} {'min..max ms':>15} {'requests':>9} {'CPU ms':>7} {'peak RSS MB':>12}  goal"
print(header)
print("-" * len(header))
def line(label, row, note):
    print(f"{label:<28} {row['median_wall_ms']:>10.1f} {row['min_wall_ms']:>7.1f}..{row['max_wall_ms']:<7.1f} "
          f"{row['requests']!s:>9} {row['median_cpu_ms']:>7.1f} {row['peak_rss_mb']:>12.1f}  {note}{failed(row)}")
line("cold (empty cache, network)", cold, "")
line("warm --offline", warm, f"< 20 ms: {mark(w < 20)}; cold / warm {c / w:.1f}x")
line("warm --offline, 100k index", big, f"100k / small {b / w:.2f}x <= 1.5: {mark(b <= 1.5 * w)}")
scan_ok = None if getdents == "" else getdents == "0"
print(f"getdents calls on the warm path: {getdents or 'not measured (strace missing or not permitted)'}"
      f" (goal 0: {mark(scan_ok)})")
print()
goal(4, "warm --offline list of 100 < 20 ms", f"{w:.1f} ms (cold {c:.0f} ms = {c / w:.1f}x warm)", w < 20 and warm["ok"])
goal(4, "100k-photo index / small index <= 1.5", f"{b / w:.2f} ({b:.1f} / {w:.1f} ms)", b <= 1.5 * w and big["ok"])
goal(4, "no directory scans on the warm path", f"{getdents or '-'} getdents calls", scan_ok)
PY
}

# Issue 5. A 3-column grid of 30 cached thumbnails in symbols mode, 80 columns wide (26-column
# tiles for both tools), against `timg --grid=3`; and a preview of a 1024x768 JPEG. Both through
# photos-grid-sample, the test tool over the PhotosImaging library that `photos list --format grid`
# and `photos show --preview` use.
bench_grid() {
  local width=80
  have timg || { log "grid: timg is not installed (make bench installs it)"; return 1; }
  log "== grid: 30 thumbnails, 3 columns, symbols, $width columns wide"

  # 30 thumbnails as a cache holds them: Flickr-style 150x150 squares and 128x96 landscapes.
  local thumbs="$WORK/grid-thumbs" files=() i source
  mkdir -p "$thumbs"
  for i in $(seq -w 1 30); do
    if [ $((10#$i % 2)) -eq 0 ]; then source="$ROOT/Fixtures/images/thumb.jpg"; else source="$ROOT/Fixtures/images/base-thumb.jpg"; fi
    cp "$source" "$thumbs/$i.jpg"
    files+=("$thumbs/$i.jpg")
  done

  # Same colours for both tools; neither output is a terminal, so modes are forced explicitly.
  export COLORTERM=truecolor TERM=xterm-256color
  unset NO_COLOR
  local grid=("$GRID_SAMPLE" --graphics symbols --columns 3 --width "$width")
  local cached=("${grid[@]}" --cache "$WORK/grid-tiles")
  local timg=(timg --grid=3 -g"${width}x40" -pq)

  # Sanity: photos draws all 30 (an id under each tile, 3 per row) and timg runs.
  "${cached[@]}" "${files[@]}" >"$WORK/grid.txt"
  [ "$(grep -c 'sample:' "$WORK/grid.txt")" -eq 10 ] || { log "grid: photos-grid-sample did not draw 30 tiles"; return 1; }
  "${timg[@]}" "${files[@]}" >/dev/null

  local fast=(--runs "$FAST_RUNS" --warmup 3 --note "section=grid")
  measure "photos, tile cache warm" "${fast[@]}" -- "${cached[@]}" "${files[@]}"
  measure "photos, no tile cache" "${fast[@]}" -- "${grid[@]}" "${files[@]}"
  measure "timg --grid=3" "${fast[@]}" -- "${timg[@]}" "${files[@]}"
  measure "photos preview" "${fast[@]}" -- "$GRID_SAMPLE" --preview --graphics symbols --width "$width" "$ROOT/Fixtures/images/large.jpg"

  report <<'PY'
rows = rows("grid")
timg = rows["timg --grid=3"]
t = timg["median_wall_ms"]
print(f"== grid (issue 5): 30 cached thumbnails, 3 columns, symbols mode, 80 columns wide; "
      f"median of {timg['runs']} runs")
print()
header = f"{'run':<24} {'median ms':>10} {'min..max ms':>15} {'CPU ms':>7} {'peak RSS MB':>12}  {'/ timg':<20}"
print(header)
print("-" * len(header))
for name in ("photos, tile cache warm", "photos, no tile cache", "timg --grid=3", "photos preview"):
    row = rows[name]
    m = row["median_wall_ms"]
    ratio = "" if name in ("timg --grid=3", "photos preview") else f"{m / t:.2f}"
    if name == "photos, tile cache warm":
        ratio += f" ({mark(m <= 0.8 * t)}: <=0.8)"
    print(f"{name:<24} {m:>10.1f} {row['min_wall_ms']:>7.1f}..{row['max_wall_ms']:<7.1f} {row['median_cpu_ms']:>7.1f} "
          f"{row['peak_rss_mb']:>12.1f}  {ratio:<20}{failed(row)}")
print()
print("tile cache warm: what a repeated `photos list --format grid` of cached thumbnails does (the goal);")
print("  no tile cache: every thumbnail decoded and rendered (chafa's symbol search), for information.")
preview = rows["photos preview"]
cpu = preview["median_cpu_ms"]
print(f"preview of Fixtures/images/large.jpg (1024x768) at 80 columns: {cpu:.1f} ms CPU "
      f"(user + system, median; goal < 50 ms: {mark(cpu < 50)})")
print()
cached = rows["photos, tile cache warm"]
c = cached["median_wall_ms"]
goal(5, "grid of 30 cached thumbnails / timg --grid=3 <= 0.8", f"{c / t:.2f} ({c:.1f} / {t:.1f} ms)",
     c <= 0.8 * t and cached["ok"] and timg["ok"])
goal(5, "preview of a 1024 px JPEG < 50 ms CPU", f"{cpu:.1f} ms", cpu < 50 and preview["ok"])
PY
}

# Issue 11. `photos save` of a Flickr search: 500 large photos from the search to the last byte
# at 50 ms latency against curl doing the same work (the listing, then the 500 URLs with
# --parallel --parallel-max 100) and against gallery-dl's own Flickr extractor; peak RSS of saving
# 100 and 1000; a re-run of a finished save.
bench_save() {
  local latency=50 count=500 streams=100
  log "== save: $count Flickr photos (large), ${latency} ms latency"
  start_server "$latency"
  local url=$SERVER_URL ca=$SERVER_CA
  export PHOTOS_CA_BUNDLE="$ca" PHOTOS_FLICKR_API="$url/services/rest/" PHOTOS_FLICKR_STATIC="$url/flickr-static" \
    FLICKR_API_KEY=test-key TERM=dumb
  # photos' cache beside the files, on the file system curl writes to: the same disk for both.
  local cache="$OUT_BASE/save-cache" out="$OUT_BASE/save"
  local stats=(--stats-url "$url" --ca-file "$ca")
  # A cold save: the cache is emptied before every run (rm of a small folder, inside the timing).
  local cold=(sh -c 'rm -rf "$0" && exec "$@"' "$cache" env PHOTOS_CACHE_DIR="$cache")
  local save=("$PHOTOS" save --provider flickr --query many --size large --format json --to "$out")

  # curl: one listing request of 500 with every extra photos asks for, then every url_l with
  # --parallel (photos walks pages of 100 so that downloads start early: five requests).
  local extras="description,license,date_upload,date_taken,owner_name,tags,o_dims,views,media,path_alias"
  extras+=",url_q,url_m,url_n,url_z,url_l,url_h,url_k,url_o"
  cat >"$WORK/curl-save.sh" <<'SH'
#!/bin/sh
# curl-save.sh API CA OUT CONFIG EXTRAS COUNT STREAMS: a Flickr search, then its url_l images.
set -e
curl -s --cacert "$2" "$1?method=flickr.photos.search&api_key=test-key&text=many&sort=relevance&extras=$5&per_page=$6&page=1&format=json&nojsoncallback=1" |
  jq -r '.photos.photo[].url_l | "url = \"" + . + "\""' >"$4"
exec curl -s --no-progress-meter --parallel --parallel-max "$7" --cacert "$2" --output-dir "$3" --remote-name-all -K "$4"
SH
  chmod +x "$WORK/curl-save.sh"
  local photos=(photos "${stats[@]}" --fresh-dir "$out" --expect-files "$count" --note "section=save" --
    "${cold[@]}" "${save[@]}" --limit "$count")
  if have jq; then
    measure_together "${photos[@]}" ::: curl "${stats[@]}" --fresh-dir "$out" --expect-files "$count" --note "section=save" -- \
      "$WORK/curl-save.sh" "$url/services/rest/" "$ca" "$out" "$WORK/curl-save.cfg" "$extras" "$count" "$streams"
  else
    measure "${photos[@]}"
    log "   curl: skipped (jq is missing)"
  fi

  # A re-run of the finished save: the listing comes from the cache, every file is there.
  export PHOTOS_CACHE_DIR="$cache"
  local done="$WORK/save-done"
  "$PHOTOS" save --provider flickr --query many --size large --format json --to "$done" --limit "$count" >/dev/null
  measure "photos re-run" --runs "$FAST_RUNS" --warmup 1 "${stats[@]}" --note "section=save" -- \
    "$PHOTOS" save --provider flickr --query many --size large --format json --to "$done" --limit "$count"

  # Memory whatever the count: saving 100 and 1000, cold.
  measure "photos 100" "${stats[@]}" --fresh-dir "$out" --expect-files 100 --note "section=save;rss" -- \
    "${cold[@]}" "${save[@]}" --limit 100
  measure "photos 1000" "${stats[@]}" --fresh-dir "$out" --expect-files 1000 --note "section=save;rss" -- \
    "${cold[@]}" "${save[@]}" --limit 1000

  # gallery-dl: its own Flickr search extractor, from PyPI into .build/bench-venv (the version
  # is pinned in install-gallery-dl.sh). Its API URL is a class attribute (FlickrAPI.API_URL),
  # which the wrapper points at the emulation, whose photo URLs are its own. API_KEY, a property
  # that scrapes a public key from www.flickr.com (read even when the api-key option is set),
  # becomes None: the key is the api-key option. It asks for pages of 100 (Flickr's default),
  # with url_o and the sizes up to size-max, keeps url_l, and downloads one file after another
  # over one HTTP/1.1 connection: about 30 s, so one run, after a warm-up of its imports.
  local gallery="" install_log venv="$ROOT/.build/bench-venv"
  if install_log=$("$BENCH_DIR/install-gallery-dl.sh" "$venv" 2>&1); then
    [ -z "$install_log" ] || log "$install_log"
    cat >"$WORK/gallery-dl-flickr.py" <<'PY'
"""gallery-dl-flickr.py API_URL [gallery-dl arguments]: gallery-dl with its Flickr API at API_URL."""
import sys
import gallery_dl
from gallery_dl.extractor import flickr

flickr.FlickrAPI.API_URL = sys.argv[1]
flickr.FlickrAPI.API_KEY = None
sys.argv[1:2] = []
sys.exit(gallery_dl.main())
PY
    "$venv/bin/python" -c 'import gallery_dl, gallery_dl.extractor.flickr, requests'
    measure "gallery-dl" --runs 1 --warmup 0 "${stats[@]}" --fresh-dir "$out" --expect-files "$count" --note "section=save" -- \
      "$venv/bin/python" "$WORK/gallery-dl-flickr.py" "$url/services/rest/" --config-ignore --quiet \
      -o "cache.file=$WORK/gallery-dl-cache.sqlite3" -o "verify=$ca" \
      -o extractor.flickr.api-key=test-key -o extractor.flickr.size-max=l \
      --range "1-$count" -D "$out" "https://www.flickr.com/search/?text=many"
  else
    log "$install_log"
    gallery=$(tail -n 1 <<<"$install_log")
    log "   gallery-dl: skipped ($gallery)"
  fi

  report "$count" "$latency" "$streams" "$gallery" <<'PY'
count, latency, streams, gallery = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = rows("save")
photos = rows["photos"]
p = photos["median_wall_ms"]
print(f"== save (issue 11): `photos save --provider flickr --query many --limit {count} --size large`, cold "
      f"(empty cache and folder), {latency} ms server latency, median of {photos['runs']} runs")
print()
header = (f"{'run':<15} {'median ms':>10} {'min..max ms':>15} {'conns':>6} {'requests':>9} {'CPU ms':>7} "
          f"{'peak RSS MB':>12}  {'photos/peer':<20} notes")
print(header)
print("-" * len(header))
notes = {
    "photos": "search (pages of 100) to the last byte, one process",
    "curl": f"the same listing request, jq, then --parallel --parallel-max {streams}",
    "photos re-run": "the same save again: listing cached, every file there",
    "photos 100": "cold save of 100",
    "photos 1000": "cold save of 1000",
    "gallery-dl": "its Flickr search extractor, size-max l, HTTP/1.1, one file after another",
}
limits = {"curl": 0.8, "gallery-dl": 0.1}
for name in ("photos", "curl", "gallery-dl", "photos re-run", "photos 100", "photos 1000"):
    if name not in rows:
        continue
    row = rows[name]
    m = row["median_wall_ms"]
    ratio = f"{p / m:.2f} ({mark(p / m <= limits[name])}: <={limits[name]})" if name in limits else ""
    runs = f" ({row['runs']} run{'s' if row['runs'] != 1 else ''})" if row["runs"] != photos["runs"] else ""
    print(f"{name:<15} {m:>10.0f} {row['min_wall_ms']:>7.0f}..{row['max_wall_ms']:<7.0f} {row['connections']!s:>6} "
          f"{row['requests']!s:>9} {row['median_cpu_ms']:>7.0f} {row['peak_rss_mb']:>12.1f}  {ratio:<20} "
          f"{notes[name]}{runs}{failed(row)}")
print()
rounds = -(-count // streams)
print(f"latency floor: the listing plus ceil({count}/{streams}) rounds = {(1 + rounds) * latency} ms, plus the transfer time")
if "curl" in rows:
    c = rows["curl"]["median_wall_ms"]
    goal(11, f"save of {count} / curl --parallel <= 0.8", f"{p / c:.2f} ({p:.0f} / {c:.0f} ms)", p / c <= 0.8 and photos["ok"])
else:
    goal(11, f"save of {count} / curl --parallel <= 0.8", "curl not run (jq missing)", None)
rerun = rows["photos re-run"]
r = rerun["median_wall_ms"]
goal(11, f"re-run of a finished save of {count} < 150 ms", f"{r:.0f} ms", r < 150 and rerun["ok"])
goal(11, "re-run makes no request", f"{rerun['requests']} requests", rerun["requests"] == 0)
small, large = rows["photos 100"], rows["photos 1000"]
ratio = large["peak_rss_mb"] / small["peak_rss_mb"]
print(f"peak RSS: {small['peak_rss_mb']:.1f} MB saving 100, {large['peak_rss_mb']:.1f} MB saving 1000: {ratio:.2f}x "
      f"(goal <= 1.2: {mark(ratio <= 1.2)})")
if "gallery-dl" not in rows:
    print(f"gallery-dl: not measured: {gallery}")
print()
goal(11, "peak RSS saving 1000 / saving 100 <= 1.2", f"{ratio:.2f} ({large['peak_rss_mb']:.1f} / {small['peak_rss_mb']:.1f} MB)",
     ratio <= 1.2 and small["ok"] and large["ok"])
if "gallery-dl" in rows:
    gdl = rows["gallery-dl"]
    g = gdl["median_wall_ms"]
    goal(11, f"save of {count} >= 10x faster than gallery-dl", f"{g / p:.1f}x ({g:.0f} / {p:.0f} ms)",
         g / p >= 10 and photos["ok"] and gdl["ok"])
else:
    goal(11, f"save of {count} >= 10x faster than gallery-dl", f"not measured: {gallery}", None)
PY
}

# Issue 12. `photos browse` in a 160x50 tmux pane, symbols mode: a key that moves the selection
# drawn within a frame, 1000 photos scrolled through in bounded memory, and the first screen of
# tiles about as soon as `photos list --format grid` prints the same page (50 ms latency).
bench_browse() {
  have tmux || { log "browse: tmux is not installed (make deps installs it)"; return 1; }
  log "== browse: photos browse in a 160x50 tmux pane, symbols mode"

  # The placeholder listing grown to 1200 photos (each with a thumbnail of its own colour).
  local fixtures="$WORK/browse-fixtures"
  rm -rf "$fixtures"
  cp -r "$ROOT/Fixtures" "$fixtures"
  python3 - "$fixtures/placeholder/photos.json" <<'PY'
import json, sys
records = json.load(open(sys.argv[1]))
base = list(records)
for number in range(len(base) + 1, 1201):
    record = dict(base[(number - 1) % len(base)])
    colour = "%06x" % ((number * 2654435761) & 0xFFFFFF)
    record.update(id=number, albumId=(number + 49) // 50, url="https://via.placeholder.com/600/" + colour,
                  thumbnailUrl="https://via.placeholder.com/150/" + colour)
    records.append(record)
json.dump(records, open(sys.argv[1], "w"))
PY
  export COLORTERM=truecolor
  unset NO_COLOR
  local driver=(python3 "$BENCH_DIR/browse.py" --photos "$PHOTOS" --note "section=browse")
  start_server 0 "$fixtures"
  log "   keys"
  "${driver[@]}" keys --name keys --keys 200 --server "$SERVER_URL" --ca "$SERVER_CA" >>"$RAW"
  log "   scroll through 1000 photos"
  "${driver[@]}" scroll --name scroll --count 1000 --server "$SERVER_URL" --ca "$SERVER_CA" >>"$RAW"
  start_server 50
  log "   first screen at 50 ms latency"
  "${driver[@]}" first-screen --name "first screen" --runs "$RUNS" --server "$SERVER_URL" --ca "$SERVER_CA" >>"$RAW"
  log "   list --format grid at 50 ms latency"
  "${driver[@]}" list-grid --name "list grid" --runs "$RUNS" --server "$SERVER_URL" --ca "$SERVER_CA" >>"$RAW"

  report <<'PY'
rows = rows("browse")
keys, scroll, first, grid = rows["keys"], rows["scroll"], rows["first screen"], rows["list grid"]
print("== browse (issue 12): photos browse in a 160x50 tmux pane, symbols mode, placeholder provider")
print()
print(f"key to drawn ({keys['keys']} keys: moves and one-row scrolls): median {keys['median_ms']:.1f} ms, "
      f"p95 {keys['p95_ms']:.1f} ms, max {keys['max_ms']:.1f} ms, {keys['over_16ms']} over 16 ms")
print(f"scrolled through {scroll['photos']} photos in {scroll['seconds']:.0f} s: peak RSS {scroll['peak_rss_mb']:.1f} MB")
ratio = first["median_ms"] / grid["median_ms"]
print(f"launch to first screen of tiles, 50 ms latency, fresh cache: browse {first['median_ms']:.0f} ms "
      f"(min {first['min_ms']:.0f}, max {first['max_ms']:.0f}) vs list --format grid {grid['median_ms']:.0f} ms "
      f"(min {grid['min_ms']:.0f}, max {grid['max_ms']:.0f}): {ratio:.2f}x; median of {first['runs']} runs")
print()
goal(12, "browse: key to drawn, p95 <= 16 ms (160x50, symbols)", f"p95 {keys['p95_ms']:.1f} ms, median {keys['median_ms']:.1f}",
     keys["p95_ms"] <= 16)
goal(12, "browse: 1000 photos scrolled, peak RSS < 100 MB", f"{scroll['peak_rss_mb']:.1f} MB", scroll["peak_rss_mb"] < 100)
goal(12, "browse: first screen / list --format grid <= 1.2", f"{ratio:.2f} ({first['median_ms']:.0f} / {grid['median_ms']:.0f} ms)",
     ratio <= 1.2)
PY
}

# Issue 13. The cost per photo: a cold listing of N Flickr photos with thumbnails at 50 ms latency
# against curl doing the same work; the listing alone against curl fetching its URL; cached
# listings and `photos --version` wall; and the instructions (callgrind) of decoding, storing and
# printing 500 photos, cold and cached, as multiples of `photos --version`'s.
bench_cost() {
  local latency=50 streams=100
  have jq || { log "cost: jq is missing (make bench installs it)"; return 1; }
  log "== cost: cold photos list of N Flickr photos with thumbnails, ${latency} ms latency, vs curl"
  start_server "$latency"
  local url=$SERVER_URL ca=$SERVER_CA
  start_server 0
  local url0=$SERVER_URL
  export PHOTOS_CA_BUNDLE="$ca" FLICKR_API_KEY=test-key TERM=dumb
  unset PHOTOS_FLICKR_API PHOTOS_FLICKR_STATIC
  # photos writes its thumbnails into its cache, curl into files: both on the same file system
  # ($OUT_BASE), so that neither pays for a disk the other does not use.
  local cache="$OUT_BASE/cost-cache" out="$OUT_BASE/cost"
  local extras="description,license,date_upload,date_taken,owner_name,tags,o_dims,views,media,path_alias"
  extras+=",url_q,url_m,url_n,url_z,url_l,url_h,url_k,url_o"
  # curl-list.sh API CA OUT CONFIG EXTRAS COUNT STREAMS: the search photos makes, then its url_q
  # thumbnails with --parallel, bodies to files (OUT empty: the listing only).
  cat >"$WORK/curl-list.sh" <<'SH'
#!/bin/sh
set -e
listing="$1?method=flickr.photos.search&api_key=test-key&text=many&sort=relevance&extras=$5&per_page=$6&page=1&format=json&nojsoncallback=1"
if [ -z "$3" ]; then exec curl -s -o /dev/null --cacert "$2" "$listing"; fi
curl -s --cacert "$2" "$listing" | jq -r '.photos.photo[] | "url = \"" + .url_q + "\"\noutput = \"'"$3"'/" + .id + "\""' >"$4"
exec curl -s --no-progress-meter --parallel --parallel-max "$7" --cacert "$2" -K "$4"
SH
  chmod +x "$WORK/curl-list.sh"
  # A cold listing: the cache emptied before every run, outside the timing, as curl's folder is
  # (--fresh-dir). Emptied inside it, with `rm -rf` before photos started, it cost photos 19 to
  # 47 ms of a run of 300 to 400 (500 files to delete) that curl's side did not pay.
  local cold=(env PHOTOS_CACHE_DIR="$cache")
  local count
  for count in 100 500; do
    measure_together "photos $count" --stats-url "$url" --ca-file "$ca" --fresh-dir "$cache" --note "section=cost;thumbnails" -- \
      "${cold[@]}" PHOTOS_FLICKR_API="$url/services/rest/" PHOTOS_FLICKR_STATIC="$url/flickr-static" \
      "$PHOTOS" list --provider flickr --query many --per-page "$count" --format json \
      ::: "curl $count" --stats-url "$url" --ca-file "$ca" --fresh-dir "$out" --expect-files "$count" \
      --note "section=cost;thumbnails" -- "$WORK/curl-list.sh" "$url/services/rest/" "$ca" "$out" "$WORK/curl-$count.cfg" "$extras" "$count" "$streams"
  done

  # The listing alone (no latency): photos' decoding, storing and printing against curl's fetch.
  export PHOTOS_FLICKR_API="$url0/services/rest/" PHOTOS_FLICKR_STATIC="$url0/flickr-static"
  local list500=(list --provider flickr --query many --per-page 500)
  measure_together "photos no thumbnails" --runs "$FAST_RUNS" --stats-url "$url0" --ca-file "$ca" --fresh-dir "$cache" --note "section=cost;listing" -- \
    "${cold[@]}" "$PHOTOS" "${list500[@]}" --no-thumbnails --format json \
    ::: "curl listing" --stats-url "$url0" --ca-file "$ca" --note "section=cost;listing" -- \
    "$WORK/curl-list.sh" "$url0/services/rest/" "$ca" "" "" "$extras" 500 "$streams"
  export PHOTOS_CACHE_DIR="$cache"
  rm -rf "$cache"
  "$PHOTOS" "${list500[@]}" --no-thumbnails --format json >/dev/null
  local fast=(--runs "$FAST_RUNS" --warmup 3 --note "section=cost;cached")
  measure_together "photos --version" "${fast[@]}" -- "$PHOTOS" --version \
    ::: "cached table" --note "section=cost;cached" -- "$PHOTOS" "${list500[@]}" --offline --format table \
    ::: "cached jsonl" --note "section=cost;cached" -- "$PHOTOS" "${list500[@]}" --offline --format jsonl

  # Instructions: valgrind 3.19 cannot read the DWARF 5 of Swift 6 binaries, so a copy without
  # debug information is counted (the same code).
  local counts="$WORK/cost-instructions.json" counted="$WORK/photos-nodebug"
  echo "{}" >"$counts"
  if have valgrind && strip --strip-debug -o "$counted" "$PHOTOS" 2>/dev/null; then
    log "   instructions (callgrind)"
    instructions() {
      valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/refs:/ {gsub(",", "", $4); print $4}'
    }
    local version cold_count table jsonl
    version=$(instructions "$counted" --version)
    rm -rf "$cache"
    cold_count=$(instructions "$counted" "${list500[@]}" --no-thumbnails --format json)
    table=$(instructions "$counted" "${list500[@]}" --offline --format table)
    jsonl=$(instructions "$counted" "${list500[@]}" --offline --format jsonl)
    printf '{"version": %s, "cold": %s, "table": %s, "jsonl": %s}\n' "${version:-null}" "${cold_count:-null}" "${table:-null}" "${jsonl:-null}" >"$counts"
  else
    log "   instructions: valgrind is not installed (make bench installs it)"
  fi

  report "$count" "$latency" "$streams" "$counts" <<'PY'
count, latency, streams, counts = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), json.load(open(sys.argv[4]))
rows = rows("cost")
print(f"== cost (issue 13): cold `photos list --provider flickr --query many --per-page N --format json`, empty cache, "
      f"{latency} ms server latency, against curl doing the same work; median of {rows['photos 500']['runs']} runs")
print()
header = (f"{'run':<22} {'median ms':>10} {'min..max ms':>15} {'conns':>6} {'requests':>9} {'CPU ms':>7} "
          f"{'peak RSS MB':>12}  {'photos/curl':<20}")
print(header)
print("-" * len(header))
def line(name, ratio=""):
    row = rows[name]
    print(f"{name:<22} {row['median_wall_ms']:>10.1f} {row['min_wall_ms']:>7.1f}..{row['max_wall_ms']:<7.1f} "
          f"{row['connections']!s:>6} {row['requests']!s:>9} {row['median_cpu_ms']:>7.1f} {row['peak_rss_mb']:>12.1f}  "
          f"{ratio:<20}{failed(row)}")
for n in (100, 500):
    p, c = rows[f"photos {n}"]["median_wall_ms"], rows[f"curl {n}"]["median_wall_ms"]
    line(f"photos {n}", f"{p / c:.2f}" + (f" ({mark(p / c <= 0.6)}: <=0.6)" if n == 500 else ""))
    line(f"curl {n}")
print("  curl: the same search request, jq, then the N url_q thumbnails with --parallel --parallel-max "
      f"{streams}, bodies to files (two processes, two TLS handshakes)")
print()
p, c = rows["photos no thumbnails"]["median_wall_ms"], rows["curl listing"]["median_wall_ms"]
line("photos no thumbnails", f"{p / c:.2f} ({mark(p / c <= 1.5)}: <=1.5)")
line("curl listing")
print("  the listing of 500 alone (no latency): photos decodes, stores and prints it; curl fetches it")
print()
v = rows["photos --version"]["median_wall_ms"]
line("photos --version")
for name in ("cached table", "cached jsonl"):
    m = rows[name]["median_wall_ms"]
    print(f"{name:<22} {m:>10.1f} {rows[name]['min_wall_ms']:>7.1f}..{rows[name]['max_wall_ms']:<7.1f} {'':>6} "
          f"{rows[name]['requests']!s:>9} {rows[name]['median_cpu_ms']:>7.1f} {rows[name]['peak_rss_mb']:>12.1f}  "
          f"{m / v:.2f}x --version ({mark(m <= 1.5 * v)}: <=1.5){failed(rows[name])}")
print()
if counts.get("version"):
    base = counts["version"]
    print(f"instructions (callgrind): photos --version {base / 1e6:.1f} M; "
          + "; ".join(f"{label} {counts[key] / 1e6:.1f} M = {counts[key] / base:.1f}x"
                      for key, label in (("cold", "cold list of 500 (decode, store, print json)"),
                                         ("table", "cached table of 500"), ("jsonl", "cached jsonl of 500"))
                      if counts.get(key)))
else:
    print("instructions: not measured (valgrind missing)")
print()
p5, c5 = rows["photos 500"]["median_wall_ms"], rows["curl 500"]["median_wall_ms"]
goal(13, "cold list of 500 with thumbnails / curl <= 0.6", f"{p5 / c5:.2f} ({p5:.0f} / {c5:.0f} ms)", p5 / c5 <= 0.6 and rows["photos 500"]["ok"])
goal(13, "cold list of 500 without thumbnails / curl <= 1.5", f"{p / c:.2f} ({p:.0f} / {c:.0f} ms)", p / c <= 1.5)
for name in ("cached table", "cached jsonl"):
    m = rows[name]["median_wall_ms"]
    goal(13, f"{name} of 500 / photos --version <= 1.5", f"{m / v:.2f} ({m:.1f} / {v:.1f} ms)", m <= 1.5 * v and rows[name]["ok"])
goal(13, "photos --version <= 6 ms", f"{v:.1f} ms", v <= 6)
rss = rows["photos 500"]["peak_rss_mb"]
goal(13, "cold list of 500 with thumbnails: peak RSS < 40 MB", f"{rss:.1f} MB", rss < 40)
PY
}

# MARK: Main

# run_section NAME: runs bench_NAME in a subshell that stops its own servers (and removes the
# test CA) however it ends; records the section as not run when it fails.
NOT_RUN=()
# Issue 8. Every keyless provider side by side: `--provider all` must cost about what its slowest
# provider costs alone (they share one transport, each host its own connection).
bench_providers() {
  local latency=50 per_page=20
  log "== providers: cold photos list --query dogs --per-page $per_page, ${latency} ms latency"
  start_server "$latency"
  set -a
  # shellcheck disable=SC1090
  . "$SERVER_ENV"
  set +a
  export PHOTOS_CACHE_DIR="$WORK/providers-cache"
  local cold=(--runs "$FAST_RUNS" --stats-url "$SERVER_URL" --ca-file "$SERVER_CA" --fresh-dir "$PHOTOS_CACHE_DIR" --note "section=providers")
  local name
  for name in commons openverse nasa flickr all; do
    measure "$name" "${cold[@]}" -- "$PHOTOS" list --provider "$name" --query dogs --per-page "$per_page" --format json
  done

  report "$latency" "$per_page" <<'PY'
latency, per_page = int(sys.argv[1]), int(sys.argv[2])
rows = rows("providers")
print(f"== providers (issue 8): cold `photos list --provider P --query dogs --per-page {per_page} --format json` "
      f"with thumbnails, empty cache each run, {latency} ms server latency, median of {rows['all']['runs']} runs")
print()
header = f"{'provider':<10} {'median ms':>10} {'min..max ms':>15} {'conns':>6} {'requests':>9} {'CPU ms':>7} {'peak RSS MB':>12}"
print(header)
print("-" * len(header))
for name in ("commons", "openverse", "nasa", "flickr", "all"):
    row = rows[name]
    print(f"{name:<10} {row['median_wall_ms']:>10.0f} {row['min_wall_ms']:>7.0f}..{row['max_wall_ms']:<7.0f} "
          f"{row['connections']!s:>6} {row['requests']!s:>9} {row['median_cpu_ms']:>7.0f} {row['peak_rss_mb']:>12.1f}{failed(row)}")
slowest = max(("commons", "openverse", "nasa", "flickr"), key=lambda n: rows[n]["median_wall_ms"])
ratio = rows["all"]["median_wall_ms"] / rows[slowest]["median_wall_ms"]
print()
print(f"all / slowest alone ({slowest}): {ratio:.2f} ({mark(ratio <= 1.3)}: <=1.3)")
goal(8, f"--provider all / slowest single provider ({slowest}) <= 1.3", f"{ratio:.2f}", ratio <= 1.3 and rows["all"]["ok"])
print()
PY
}

run_section() {
  local name=$1 status=0
  set +e
  (
    set -e
    trap 'status=$?; trap - EXIT; release_resources; exit $status' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    "bench_$name"
  )
  status=$?
  set -e
  case $status in
    0) ;;
    130 | 143) exit "$status" ;;
    *)
      NOT_RUN+=("$name")
      log "== $name: could not run (exit $status)"
      printf '== %s: could not run (exit %s; the log above says why)\n\n' "$name" "$status" >>"$REPORT"
      ;;
  esac
}

selected=()
if [ "$BENCH" = "all" ]; then
  selected=("${SECTIONS[@]}")
else
  for name in ${BENCH//,/ }; do
    declare -F "bench_$name" >/dev/null || { log "unknown benchmark section '$name' (known: ${SECTIONS[*]})"; exit 64; }
    selected+=("$name")
  done
fi

have python3 || { log "the benchmarks need python3"; exit 1; }
have curl || { log "the benchmarks need curl"; exit 1; }
started=$SECONDS
build
mkdir -p "$RESULTS"
OUT_BASE=$(mktemp -d "$OUT_ROOT/photos-bench-out.XXXXXX")
: >"$REPORT"
: >"$RAW"
: >"$GOALS"
{
  echo "photos benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sr), $(nproc) cores"
  echo "photos $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (modified tree)'), release build, $RUNTIME; $(curl --version | head -1 | cut -d' ' -f1-2)"
  echo "median of $RUNS timed runs (transport) or $FAST_RUNS (list, cache, grid) after warm-up; wall times are"
  echo "each command's own start to exit; downloads (and, for save and cost, photos' cache) written under $OUT_ROOT"
  echo
} >>"$REPORT"
bench_started=$SECONDS
for name in "${selected[@]}"; do
  run_section "$name"
done

python3 - "$GOALS" "$((SECONDS - bench_started))" "${NOT_RUN[@]}" >>"$REPORT" <<'PY'
import json, sys
goals = [json.loads(line) for line in open(sys.argv[1])]
seconds, not_run = int(sys.argv[2]), sys.argv[3:]
print("== goals")
print()
width = max([len(g["goal"]) for g in goals] + [20])
header = f"{'issue':<6} {'goal':<{width}}  {'measured':<34} result"
print(header)
print("-" * len(header))
for g in goals:
    result = "n/a" if g["ok"] is None else ("ok" if g["ok"] else "MISSED")
    print(f"{g['issue']:<6} {g['goal']:<{width}}  {g['measured']:<34} {result}")
print()
met = sum(1 for g in goals if g["ok"])
missed = sum(1 for g in goals if g["ok"] is False)
print(f"{met} of {len(goals)} goals met, {missed} missed, {len(goals) - met - missed} not measured"
      + (f"; sections that could not run: {', '.join(not_run)}" if not_run else "")
      + f"; benchmarks took {seconds} s")
PY

{
  cat "$REPORT"
  echo
  echo "raw measurements (one JSON object per tool; Benchmarks/measure.py describes the fields):"
  cat "$RAW"
} >"$RESULTS/latest.txt"
cat "$REPORT"
log "saved $RESULTS/latest.txt ($((SECONDS - started)) s with the build)"
[ ${#NOT_RUN[@]} -eq 0 ]
