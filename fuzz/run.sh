#!/usr/bin/env bash
# Runs every fuzz target of a BERTH_FUZZ build for a bounded time each, two at
# a time (or FUZZ_PARALLEL), from its committed seed corpus. Fails when any
# target finds a crash, a leak or a timeout (libFuzzer's non-zero exit); the
# input that did it is left in <build>/fuzz-artifacts/ and the log is printed.
#   fuzz/run.sh <build dir> <seconds per target> [target ...]
set -euo pipefail

build=${1:?build directory}
seconds=${2:?seconds per target}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
parallel=${FUZZ_PARALLEL:-2}

# -max_len per target: objects take whole fixtures; the rest stay short so
# that the fuzzer spends its time on structure, not on length.
max_len() {
  case "$1" in
    object_decode|pod_view|node_view|workload|storage_view|protobuf) echo 65536 ;;
    quantity) echo 64 ;;
    label_selector|field_selector|node_selector) echo 1024 ;;
    wal_recover|snapshot|crd_schema|merge_patch|json_patch|strategic_merge_patch) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for f in "$build"/fuzz_*; do
    [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no fuzz_* executables in $build" >&2; exit 1; }

mkdir -p "$build/fuzz-logs" "$build/fuzz-artifacts"
run_one() {
  local t=$1
  local corpus="$build/fuzz-corpus/$t"  # new inputs go here, not into the committed seeds
  mkdir -p "$corpus"
  local log="$build/fuzz-logs/$t.log"
  if "$build/fuzz_$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=25 \
       -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
       "$corpus" "$here/corpus/$t" >"$log" 2>&1; then
    echo "fuzz_$t: ok, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs," \
         "coverage $(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')"
  else
    echo "fuzz_$t: FAILED (log $log)"
    grep -A40 -E '^==[0-9]+==|fuzz check failed|runtime error|Test unit written' "$log" | head -80
    return 1
  fi
}
export -f run_one max_len
export build seconds here

printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one {}'
