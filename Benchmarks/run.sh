#!/usr/bin/env bash
# Benchmarks of photos against peer tools, on the local fixture server. See Benchmarks/README.md.
#
#   Benchmarks/run.sh                      # every section (what `make bench` runs)
#   BENCH=transport Benchmarks/run.sh      # only the named sections (comma or space separated)
#   RUNS=9 Benchmarks/run.sh               # repetitions per tool (default 5; the median is reported)
#   SKIP_BUILD=1 Benchmarks/run.sh         # reuse the release binaries already built
#   BENCH_OUT_ROOT=DIR Benchmarks/run.sh   # where downloaded files go (default /dev/shm, a tmpfs,
#                                          # so that disk latency does not drown the transport)
#
# The table and the raw JSON of every measurement go to Benchmarks/results/latest.txt.
#
# Adding a section: write a function `bench_NAME` that appends its table to "$REPORT" and its
# JSON lines to "$RAW", and add NAME to SECTIONS below.
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SWIFT=${SWIFT:-swift}
RUNS=${RUNS:-5}
BENCH=${BENCH:-all}
SECTIONS=(transport)

RESULTS="$BENCH_DIR/results"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/photos-bench.XXXXXX")
OUT_ROOT=${BENCH_OUT_ROOT:-/dev/shm}
[ -d "$OUT_ROOT" ] && [ -w "$OUT_ROOT" ] || OUT_ROOT=$WORK
OUT_BASE=""
REPORT="$WORK/report.txt"
RAW="$WORK/raw.jsonl"
SERVER_PIDS=()
CA_INSTALLED=""
SYSTEM_CA_PATH=/usr/local/share/ca-certificates/photos-test-ca.crt

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  for pid in "${SERVER_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ -n "$CA_INSTALLED" ]; then
    $SUDO rm -f "$SYSTEM_CA_PATH"
    $SUDO update-ca-certificates >/dev/null 2>&1 || echo "warning: update-ca-certificates failed; run it to drop the test CA" >&2
  fi
  rm -rf "$WORK"
  [ -n "$OUT_BASE" ] && rm -rf "$OUT_BASE"
  exit "$status"
}
SUDO=""
[ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo -n"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() { printf '%s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

# MARK: Building

build() {
  if [ -n "${SKIP_BUILD:-}" ]; then
    log "== reusing release binaries (SKIP_BUILD)"
  else
    log "== building release binaries"
    (cd "$ROOT" && $SWIFT build -c release --product photos >&2 && $SWIFT build -c release --product photos-fixture-server >&2)
    $SWIFT build -c release --package-path "$BENCH_DIR" >&2
  fi
  BIN=$(cd "$ROOT" && $SWIFT build -c release --show-bin-path)
  BENCH_BIN=$($SWIFT build -c release --package-path "$BENCH_DIR" --show-bin-path)
  PHOTOS="$BIN/photos"
  FIXTURE_SERVER="$BIN/photos-fixture-server"
  URLSESSION_FETCH="$BENCH_BIN/urlsession-fetch"
  RUSAGE_EXEC="$BENCH_BIN/rusage-exec"
  for binary in "$PHOTOS" "$FIXTURE_SERVER" "$URLSESSION_FETCH" "$RUSAGE_EXEC"; do
    [ -x "$binary" ] || { log "missing $binary"; exit 1; }
  done
}

# MARK: Helpers

# start_server LATENCY_MS: starts a fixture server, sets SERVER_URL and SERVER_CA.
start_server() {
  local ready="$WORK/server-$1.json"
  "$FIXTURE_SERVER" --port 0 --latency-ms "$1" >"$ready" 2>"$WORK/server-$1.log" &
  SERVER_PIDS+=($!)
  local pid=$!
  for _ in $(seq 1 300); do
    [ -s "$ready" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/server-$1.log" >&2; log "fixture server exited"; exit 1; }
    sleep 0.1
  done
  [ -s "$ready" ] || { log "fixture server not ready after 30 s"; exit 1; }
  SERVER_URL=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$ready")
  SERVER_CA=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["ca_file"])' "$ready")
}

# install_test_ca CA_FILE: trusts the test CA system-wide until this script exits (URLSession on
# Linux reads only the system store). Returns non-zero when that is not possible.
install_test_ca() {
  [ -n "$CA_INSTALLED" ] && return 0
  have update-ca-certificates || return 1
  [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ] || return 1
  CA_INSTALLED=1 # set first: an interrupted install is still undone by cleanup
  $SUDO cp "$1" "$SYSTEM_CA_PATH" && $SUDO update-ca-certificates >/dev/null 2>&1
}

# measure NAME [measure.py options] -- COMMAND...: RUNS timed runs (after one warm-up), one JSON
# line appended to $RAW.
measure() {
  local name=$1
  shift
  log "   $name"
  python3 "$BENCH_DIR/measure.py" --name "$name" --runs "$RUNS" --warmup 1 \
    --rusage-exec "$RUSAGE_EXEC" "$@" >>"$RAW" || log "   $name: some runs failed (see the raw JSON)"
}

# MARK: Sections

# Downloads 1000 distinct thumbnails (5-20 KB) from one host with 50 ms server latency and the
# server's 100-stream limit, writing each body to a file, with photos and with peers.
bench_transport() {
  local count=1000 latency=50 streams=100
  log "== transport: $count files, ${latency} ms latency, $streams streams per connection"
  start_server "$latency"
  local url=$SERVER_URL ca=$SERVER_CA
  start_server 0
  local url0=$SERVER_URL

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
  local c0=(--stats-url "$url0" --ca-file "$ca" --fresh-dir "$out" --expect-files "$count" --note "section=transport-0ms")

  measure "photos" "${common[@]}" -- env PHOTOS_CA_BUNDLE="$ca" "$PHOTOS" debug fetch --urls "$dir/urls.txt" --out "$out"
  measure "curl" "${common[@]}" -- curl -s --no-progress-meter --parallel --parallel-max "$streams" --cacert "$ca" -K "$dir/curl.cfg"
  if install_test_ca "$ca"; then
    measure "URLSession" "${common[@]}" -- "$URLSESSION_FETCH" --urls "$dir/urls.txt" --out "$out" --connections-per-host "$streams"
  else
    log "   URLSession: skipped (cannot add the test CA to the system store without root)"
  fi
  if have wget2; then
    measure "wget2" "${common[@]}" -- wget2 -q --no-config --http2 --max-threads=5 --http2-request-window="$streams" \
      --ca-certificate="$ca" --no-ocsp --no-hsts --robots=off --no-directories -P "$out" -i "$dir/urls.txt"
  fi
  if have h2load; then
    measure "h2load" --stats-url "$url" --ca-file "$ca" --note "section=transport; no files written" -- \
      h2load -n "$count" -c 1 -m "$streams" -i "$dir/urls.txt"
  fi
  measure "photos@0ms" "${c0[@]}" -- env PHOTOS_CA_BUNDLE="$ca" "$PHOTOS" debug fetch --urls "$dir/urls0.txt" --out "$out"
  measure "curl@0ms" "${c0[@]}" -- curl -s --no-progress-meter --parallel --parallel-max "$streams" --cacert "$ca" -K "$dir/curl0.cfg"

  python3 - "$RAW" "$count" "$streams" "$latency" >>"$REPORT" <<'PY'
import json, math, sys
raw, count, streams, latency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = {}
for line in open(raw):
    entry = json.loads(line)
    if entry["note"].startswith("section=transport"):
        rows[entry["name"]] = entry
photos = rows["photos"]
p = photos["median_wall_ms"]
notes = {
    "photos": "photos debug fetch (libcurl multi, 1 connection per host)",
    "curl": "--parallel --parallel-max %d" % streams,
    "URLSession": "FoundationNetworking (libcurl), httpMaximumConnectionsPerHost %d" % streams,
    "wget2": "--http2 --max-threads=5 (one connection per thread)",
    "h2load": "-c 1 -m 100, no files written: floor reference",
    "photos@0ms": "same job, server without latency",
    "curl@0ms": "same job, server without latency",
}
goals = {"curl": 0.9, "URLSession": 0.2}
print(f"transport: {count} distinct thumbnails (5-20 KB), {latency} ms server latency, "
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
        ratio += f" ({'ok' if p / m <= goals[name] else 'missed'}: <={goals[name]})"
    conns = "-" if row["connections"] is None else str(row["connections"])
    bad = [d for d in row["details"] if d["exit"] != 0 or d.get("files_written", count) != count]
    flag = f"  FAILED {len(bad)} of {row['runs']} runs (exit {sorted({d['exit'] for d in bad})})" if bad else ""
    print(f"{name:<12} {m:>10.0f} {row['min_wall_ms']:>7.0f}..{row['max_wall_ms']:<7.0f}"
          f" {conns:>6} {row['peak_rss_mb']:>12.1f}  {ratio:<20} {notes.get(name, '')}{flag}")
print()
rounds = math.ceil(count / streams)
latency_floor = rounds * latency
zeros = {name: rows[name]["median_wall_ms"] for name in ("photos@0ms", "curl@0ms") if name in rows}
best = min(zeros, key=zeros.get) if zeros else None
transfer = zeros[best] if best else 0.0
floor = latency_floor + transfer
print(f"latency floor: ceil({count}/{streams}) x {latency} ms = {latency_floor} ms, plus transfer time "
      f"{transfer:.0f} ms = {floor:.0f} ms")
print(f"  transfer time = the fastest median of the same job against a server without latency ({best}):")
print("  process start, TLS handshake, 1000 streams and 1000 files. A client that overlaps transfers")
print("  with the waits can beat this floor; one that serialises them cannot.")
verdict = "ok" if p / floor <= 1.5 else "misses goal"
print(f"photos / floor: {p:.0f} / {floor:.0f} = {p / floor:.2f} (goal <= 1.5: {verdict})")
conns = photos["connections"]
print(f"photos connections: {conns} ({'exactly 1: ok' if conns == 1 else 'goal is exactly 1'})")
rss = photos["peak_rss_mb"]
print(f"photos peak RSS: {rss:.1f} MB ({'ok' if rss <= 40 else 'over'} vs goal 40 MB; "
      f"the RSS column cannot go below {photos['rss_floor_mb']:.1f} MB, what /bin/true shows)")
print()
PY
}

# MARK: Main

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
build
mkdir -p "$RESULTS"
OUT_BASE=$(mktemp -d "$OUT_ROOT/photos-bench-out.XXXXXX")
: >"$REPORT"
: >"$RAW"
{
  echo "photos benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sr), $(nproc) cores"
  echo "downloads written under $OUT_ROOT; $RUNS timed runs per tool after 1 warm-up; times include process start"
  echo "photos $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (modified tree)'), $(curl --version | head -1 | cut -d' ' -f1-3)"
  echo
} >>"$REPORT"
for name in "${selected[@]}"; do
  "bench_$name"
done

{
  cat "$REPORT"
  echo "raw measurements (one JSON object per tool; Benchmarks/measure.py describes the fields):"
  cat "$RAW"
} >"$RESULTS/latest.txt"
cat "$REPORT"
log "saved $RESULTS/latest.txt"
