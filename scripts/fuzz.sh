#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/, clang, ASan + UBSan) into
# build-fuzz/ and runs each one, one after the other, for SECONDS (default
# 60). Prints executions, coverage and findings per target; exits non-zero
# if any target found a crash, leak, timeout or out-of-memory input.
#
#   bash scripts/fuzz.sh            # 60 s per target (part of scripts/test.sh)
#   bash scripts/fuzz.sh 600        # the 10-minute acceptance run
#
# The corpus grows across runs in build-fuzz/corpus/<target>/ (ignored by
# git), plus tests/fuzz/seeds/<target>/ if present. A finding is written to
# build-fuzz/artifacts/<target>/; to keep it as a regression test, copy it
# to tests/fuzz/regressions/<target>/ (ctest replays that directory).
# Needs scripts/setup.sh to have run once (clang, libclang-rt-14-dev).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-60}"
TARGETS=(reader_fuzzer builder_fuzzer sst_format_fuzzer)
BUILD=build-fuzz

cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DSSTFILTER_FUZZ=ON \
  -DSSTFILTER_BUILD_TESTS=OFF -DSSTFILTER_BUILD_BENCH=OFF >&2
cmake --build "$BUILD" -j2 --target "${TARGETS[@]}" >&2

failed=0
summary=()
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/corpus/$t"
  artifacts="$BUILD/artifacts/$t"
  log="$BUILD/$t.log"
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [ -d "tests/fuzz/seeds/$t" ] && seeds=("tests/fuzz/seeds/$t")
  before="$(find "$artifacts" -type f | wc -l)"
  printf '[fuzz] %s for %s s (log: %s)\n' "$t" "$SECONDS_PER_TARGET" "$log" >&2
  rc=0
  # detect_leaks stays on (libFuzzer's default): a leak is a finding too.
  ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/tests/fuzz/$t" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
    -timeout=30 -rss_limit_mb=4096 -artifact_prefix="$artifacts/" \
    "$corpus" "${seeds[@]}" > "$log" 2>&1 || rc=$?
  # A crash while loading the corpus leaves no stats: never fail on parsing.
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)"
  cov="$({ grep -o 'cov: [0-9]*' "$log" || true; } | tail -n1 | cut -d' ' -f2)"
  units="$(find "$corpus" -type f | wc -l)"
  findings=$(( $(find "$artifacts" -type f | wc -l) - before ))
  line="$t: ${execs:-?} executions in ${SECONDS_PER_TARGET} s (${rate:-?}/s), coverage ${cov:-?} edges, corpus $units inputs, $findings new findings, exit $rc"
  summary+=("$line")
  if [ "$rc" != 0 ] || [ "$findings" != 0 ]; then
    failed=1
    grep -E 'ERROR|property violated|SUMMARY|Test unit written' "$log" >&2 || tail -n 30 "$log" >&2
    printf '[fuzz] %s: finding(s) in %s/ -- copy them to tests/fuzz/regressions/%s/\n' \
      "$t" "$artifacts" "$t" >&2
  fi
done
printf '[fuzz] %s\n' "${summary[@]}"
exit "$failed"
