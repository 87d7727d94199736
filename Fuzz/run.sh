#!/usr/bin/env bash
# Runs every fuzz target for FUZZ_SECONDS (default 60) each, one after the other, and prints the
# executions per target. Build first (make fuzz does): the targets are in $FUZZ_BIN
# (default Fuzz/.build/release; make fuzz-ci builds them in Fuzz/.build/debug).
#
# Usage: Fuzz/run.sh [target...]    (targets: provider-<name> for every registered provider,
#                                    terminal, image, config, cache; default: all of them)
#
# Each target reads the committed seeds and crash reproducers in Fixtures/fuzz/<target>/ and
# keeps what it learns in Fuzz/.build/corpus/<target>/ (never committed). A crash, a hang (an
# input running over 10 s) or memory over 2 GB fails the run; the input is saved in
# Fuzz/.build/findings/<target>/ and the run goes on with the other targets.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
bin=${FUZZ_BIN:-Fuzz/.build/release}
work=Fuzz/.build

if [ ! -x "$bin/fuzz-provider" ]; then
  echo "no fuzz targets in $bin: build them with make fuzz" >&2
  exit 1
fi

providers=$(PHOTOS_FUZZ_PROVIDER=list "$bin/fuzz-provider" 2>/dev/null)
all=()
for name in $providers; do all+=("provider-$name"); done
all+=(terminal image config cache)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

failed=()
summary=()
for target in "${targets[@]}"; do
  env=()
  name=
  case "$target" in
    provider-*)
      name=${target#provider-}
      executable=fuzz-provider
      env=(PHOTOS_FUZZ_PROVIDER="$name")
      ;;
    terminal | image | config | cache) executable="fuzz-$target" ;;
    *)
      echo "unknown fuzz target '$target' (targets: ${all[*]})" >&2
      exit 2
      ;;
  esac
  seeds=Fixtures/fuzz/$target
  if [ ! -d "$seeds" ]; then
    # A provider added without seeds of its own starts from its recorded responses.
    if [ -n "${name:-}" ] && [ -d "Fixtures/$name" ]; then
      echo "$target: no $seeds/ yet, seeding from Fixtures/$name/" >&2
      seeds=Fixtures/$name
    else
      echo "$target: no seeds in Fixtures/fuzz/$target/" >&2
      exit 2
    fi
  fi
  corpus=$work/corpus/$target
  findings=$work/findings/$target
  log=$work/logs/$target.log
  mkdir -p "$corpus" "$findings" "$(dirname "$log")"

  echo "fuzzing $target for ${seconds}s" >&2
  status=0
  # Leak checks stay off: the Swift runtime's caches look like leaks to LeakSanitizer, and
  # checking after every input costs nine tenths of the time; runaway memory is caught by the
  # RSS limit instead. Swift's own backtracer stays off so that AddressSanitizer reports crashes.
  env SWIFT_BACKTRACE=enable=no "${env[@]}" "$bin/$executable" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" "$seeds" >"$log" 2>&1 || status=$?

  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    rate=$(( ${runs:-0} / (${elapsed:-$seconds} > 0 ? ${elapsed:-$seconds} : 1) ))
    summary+=("$(printf '%-24s %10s runs %8s/s %6s corpus  ok' "$target" "${runs:-?}" "$rate" "$units")")
  else
    failed+=("$target")
    summary+=("$(printf '%-24s %10s runs %8s   %6s corpus  FAILED (exit %s)' "$target" "${runs:-?}" "" "$units" "$status")")
    echo "--- $target failed; the end of $log:" >&2
    grep -v '^#[0-9]' "$log" | tail -40 >&2
    echo "--- inputs saved in $findings/:" >&2
    ls "$findings" >&2
  fi
  unset name
done

echo
echo "fuzzing, ${seconds}s per target:"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz findings in: ${failed[*]} (reproduce: $bin/fuzz-<target> <input>)" >&2
  exit 1
fi
