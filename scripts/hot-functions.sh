#!/usr/bin/env bash
# Regenerates scripts/hot-functions.txt: the functions of the photos binary that its common
# commands run, in the order the release link puts first (lld --symbol-ordering-file, see
# RELEASE_FLAGS in the Makefile).
#
# Why: Linux maps a program's code in 64 KB runs around each page it touches. Spread over the
# binary's 25 MB of code, the few thousand functions a listing runs brought 12.8 MB of it into
# memory; packed together they bring about 6 MB.
#
# How: runs the commands below under valgrind's callgrind, against the fixture server with a
# fresh cache, and keeps every function of the photos binary that ran: those of `photos --version`
# first, then those each further command adds, sorted by name within each command (so that the
# file follows the code, not the layout of the binary profiled; between two runs only a few
# functions whose first use depends on thread timing, libdispatch's waits, move). Names that no longer exist after a change are ignored by
# the linker, and new functions are merely not packed: regenerate after large changes.
#
#   make release && scripts/hot-functions.sh [PATH_TO_RELEASE_PHOTOS]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || scripts/install-deps.sh valgrind

binary=${1:-.build/release/photos}
[ -x "$binary" ] || { echo "no $binary: run make release first" >&2; exit 1; }
# shellcheck source=scripts/fixture-server.sh
. scripts/fixture-server.sh
start_fixture_server
export TERM=dumb

# valgrind reads the symbol table; debug information only slows it down.
cp "$binary" "$work/photos"
strip --strip-debug "$work/photos"

profiles=()
profile() {
  local name=$1
  shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" "$work/photos" "$@" >/dev/null 2>"$work/$name.log" \
    || { echo "photos $* failed under valgrind:" >&2; tail -5 "$work/$name.log" >&2; exit 1; }
  profiles+=("$work/$name.out")
}
profile version --version
profile help list --help
profile list-cold list --provider flickr --query many --per-page 500 --format json
profile list-table list --provider flickr --query many --per-page 500 --offline
profile list-jsonl list --provider flickr --query many --per-page 500 --offline --format jsonl
profile list-placeholder list --provider placeholder
profile list-commons list --provider commons --query dogs
profile save save --provider flickr --query many --size large --limit 100 --to "$work/saved" --format json
profile save-again save --provider flickr --query many --size large --limit 100 --to "$work/saved"
profile show show commons:22459639 --format json
profile stats cache stats

python3 - "${profiles[@]}" >scripts/hot-functions.txt <<'PY'
import re
import sys

# callgrind names each object and function once, as "ob=(N) path" / "fn=(N) name", and by
# number after that; "fn=" lines start the costs of a function that ran.
seen, order = set(), []
for path in sys.argv[1:]:
    objects, functions, current, new = {}, {}, None, []
    with open(path, errors="replace") as profile:
        for line in profile:
            match = re.match(r"(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if not match:
                continue
            kind, number, name = match.groups()
            table = objects if kind.endswith("ob") else functions
            if name:
                table[number] = name
            if kind == "ob":
                current = objects.get(number, "")
            elif kind == "fn" and current.endswith("/photos"):
                symbol = re.sub(r"'\d+$", "", functions.get(number, ""))  # callgrind's recursion marks
                # Skips callgrind's own entries ("(below main)") and unnamed code ("0x...").
                if symbol and " " not in symbol and not symbol.startswith("0x") and symbol not in seen:
                    seen.add(symbol)
                    new.append(symbol)
    order += sorted(new)
print("\n".join(order))
PY
echo "scripts/hot-functions.txt: $(wc -l <scripts/hot-functions.txt) functions" >&2
