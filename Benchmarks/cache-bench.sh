#!/usr/bin/env bash
# The disk cache's goals (issue 4), on the local fixture server:
#   1. a warm `photos list --offline` of a cached 100-photo page: median wall under 20 ms, and its
#      ratio to the cold run (empty cache: listing + 100 thumbnails over the network);
#   2. with 100,000 photos in the index, the warm run stays within 1.5x of the small-index time;
#   3. lookups never list a folder: the warm run makes no getdents64 call (strace, when present).
#
#   Benchmarks/cache-bench.sh            # RUNS=N (default 15) repetitions, median reported
#   SKIP_BUILD=1 Benchmarks/cache-bench.sh
#
# Prints a table and one JSON line per measurement; exits 1 when a goal is missed.
# (Kept beside Benchmarks/run.sh until that script lands; then it becomes its `bench_cache`.)
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SWIFT=${SWIFT:-swift}
RUNS=${RUNS:-15}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/photos-cache-bench.XXXXXX")
SERVER_PID=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
log() { printf '%s\n' "$*" >&2; }

if [ -z "${SKIP_BUILD:-}" ]; then
  log "Building photos and photos-fixture-server (release)..."
  (cd "$ROOT" && $SWIFT build -c release --product photos >&2 && $SWIFT build -c release --product photos-fixture-server >&2)
fi
BIN=$(cd "$ROOT" && $SWIFT build -c release --show-bin-path)
PHOTOS="$BIN/photos"

"$BIN/photos-fixture-server" --port 0 --fixtures "$ROOT/Fixtures" >"$WORK/server.json" 2>"$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/server.json" ] && break; sleep 0.05; done
URL=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$WORK/server.json")
CA=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ca_file"])' "$WORK/server.json")

export PHOTOS_CONFIG="$WORK/absent.toml" PHOTOS_CA_BUNDLE="$CA" PHOTOS_PLACEHOLDER_API="$URL" TERM=dumb
LIST=(list --provider placeholder --per-page 100 --format json)

# time_runs NAME PREPARE_COMMAND -- COMMAND...: runs COMMAND $RUNS times (PREPARE before each),
# prints {"name","runs","median_ms","min_ms","max_ms"}.
time_runs() {
  local name=$1 prepare=$2
  shift 3
  python3 - "$name" "$RUNS" "$prepare" "$@" <<'PY'
import json, os, statistics, subprocess, sys, time
name, runs, prepare, command = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
walls = []
for _ in range(runs):
    if prepare:
        subprocess.run(prepare, shell=True, check=True)
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    walls.append((time.perf_counter() - start) * 1000)
    if result.returncode != 0:
        sys.exit(f"{name}: exit {result.returncode}: {result.stderr.decode(errors='replace')}")
print(json.dumps({"name": name, "runs": runs, "median_ms": round(statistics.median(walls), 2),
                  "min_ms": round(min(walls), 2), "max_ms": round(max(walls), 2)}))
PY
}
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# 1. Cold (empty cache each run) vs warm offline.
SMALL="$WORK/small"
export PHOTOS_CACHE_DIR="$SMALL"
log "Cold: ${LIST[*]} with an empty cache, $RUNS runs..."
COLD=$(time_runs cold "rm -rf '$SMALL'" -- "$PHOTOS" "${LIST[@]}")
"$PHOTOS" "${LIST[@]}" >/dev/null
log "Warm: ${LIST[*]} --offline, $RUNS runs..."
"$PHOTOS" "${LIST[@]}" --offline >/dev/null
WARM=$(time_runs warm-offline "" -- "$PHOTOS" "${LIST[@]}" --offline)

# 2. The same cache with 100,000 more photos (1,000 listings of 100) and 100,000 image rows.
BIG="$WORK/big"
cp -r "$SMALL" "$BIG"
log "Filling the index with 100,000 photos..."
python3 - "$BIG/index.sqlite" <<'PY'
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
print(db.execute("SELECT COUNT(*) FROM photo").fetchone()[0], "photos in the index", file=sys.stderr)
PY
export PHOTOS_CACHE_DIR="$BIG"
"$PHOTOS" "${LIST[@]}" --offline >/dev/null
log "Warm with 100,000 photos in the index, $RUNS runs..."
WARM_BIG=$(time_runs warm-offline-100k "" -- "$PHOTOS" "${LIST[@]}" --offline)

# 3. No folder listing on the warm path.
GETDENTS="n/a"
if command -v strace >/dev/null 2>&1; then
  strace -f -c -e trace=getdents64,getdents -o "$WORK/strace.txt" "$PHOTOS" "${LIST[@]}" --offline >/dev/null 2>&1 || true
  GETDENTS=$(awk '/getdents/ {calls += $4} END {print calls + 0}' "$WORK/strace.txt")
fi

cold_ms=$(field "$COLD" median_ms)
warm_ms=$(field "$WARM" median_ms)
big_ms=$(field "$WARM_BIG" median_ms)
status=0
python3 - "$cold_ms" "$warm_ms" "$big_ms" "$GETDENTS" <<'PY' || status=$?
import sys
cold, warm, big = map(float, sys.argv[1:4])
getdents = sys.argv[4]
ok_warm, ok_big = warm < 20, big <= 1.5 * warm
ok_scan = getdents in ("0", "n/a")
print("cache: photos list --per-page 100 (placeholder), median of runs")
print(f"  cold (empty cache, network)        {cold:8.1f} ms")
print(f"  warm --offline                     {warm:8.1f} ms   cold/warm {cold / warm:5.1f}x   goal < 20 ms: {'ok' if ok_warm else 'MISSED'}")
print(f"  warm --offline, 100k-photo index   {big:8.1f} ms   100k/small {big / warm:5.2f}x  goal <= 1.5x: {'ok' if ok_big else 'MISSED'}")
print(f"  getdents calls on the warm path    {getdents:>8}      goal 0: {'ok' if ok_scan else 'MISSED'}")
sys.exit(0 if ok_warm and ok_big and ok_scan else 1)
PY
printf '%s\n%s\n%s\n' "$COLD" "$WARM" "$WARM_BIG"
exit $status
