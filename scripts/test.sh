#!/usr/bin/env bash
# The README's test command: set-up, build, every test, then every test
# again under AddressSanitizer + UndefinedBehaviorSanitizer, then each fuzz
# target for 60 s and the concurrency tests under ThreadSanitizer.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="$(nproc 2>/dev/null || echo 2)"
step() { printf '\n==== %s (at %d s)\n' "$*" "$SECONDS" >&2; }

step "set-up (packages, RocksDB internal header)"
bash scripts/setup.sh
step "build (Release)"
bash scripts/build.sh
step "tests (Release)"
ctest --test-dir build --output-on-failure -j"$JOBS"
step "build (ASan + UBSan)"
bash scripts/build.sh --sanitize
step "tests (ASan + UBSan)"

ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$JOBS"
step "fuzzing (libFuzzer + ASan + UBSan, 60 s per target)"
bash scripts/fuzz.sh 60
step "concurrency tests (ThreadSanitizer)"
bash scripts/tsan.sh
step "all tests passed"
