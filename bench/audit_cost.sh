#!/bin/bash
# Alternates `berth api-bench --api-only` without and with --audit-log-path (docs/benchmarks-history.md,
# "The audit log's cost"). Prints: round, audit off/on, creates/s, server CPU µs per create, events logged.
B=${BERTH:-build/berth}
for r in 1 2 3 4 5 6; do
  if (( r % 2 )); then order="off on"; else order="on off"; fi
  for mode in $order; do
    rm -rf ${TMPDIR:-/tmp}/berth-audit-bench.log*
    extra=""; [ $mode = on ] && extra="--audit-log-path ${TMPDIR:-/tmp}/berth-audit-bench.log"
    out=$($B api-bench --api-only --creates 20000 --gets 0 --watchers 0 --watch-events 0 --dir ${TMPDIR:-/tmp}/berth-audit-bench $extra 2>&1)
    cps=$(echo "$out" | grep "pod creates/s" | awk '{print $(NF-1)}')
    cpu=$(echo "$out" | grep "server CPU per create" | awk '{print $(NF-1)}')
    lines=$( [ -f ${TMPDIR:-/tmp}/berth-audit-bench.log ] && wc -l < ${TMPDIR:-/tmp}/berth-audit-bench.log || echo 0)
    echo "$r $mode $cps $cpu $lines"
  done
done
