#!/usr/bin/env bash
# Builds the tests with ThreadSanitizer (clang, -fsanitize=thread) into
# build-tsan/ and runs the concurrency tests of our own code under it: many
# threads querying one FilterBitsReader (single and batched MayMatch), and
# parallel builders created from one shared policy (as parallel flushes and
# compactions do), for every registered policy. Exits non-zero on any data
# race report or test failure.
#
# Scope: our code (core, adapter) and the tests are instrumented; the Debian
# librocksdb is not. TSan sees RocksDB's pthread calls but not its atomics,
# spin locks or memory accesses, so in the real-database concurrency test
# (GetAndMultiGetDuringFlushesAndCompactions) it reports hand-offs that
# RocksDB synchronises invisibly: a key published by the memtable's
# lock-free skip list, and a filter reader built by one Get, cached, and
# used by another. Those reports cannot be told apart from real races
# without an instrumented RocksDB, so that test runs in the ordinary and
# ASan builds (scripts/test.sh) and is not part of this script.
# Needs scripts/setup.sh to have run once (clang, libclang-rt-14-dev).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD=build-tsan

cmake -S . -B "$BUILD" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DSSTFILTER_TSAN=ON \
  -DSSTFILTER_BUILD_TESTS=ON -DSSTFILTER_BUILD_BENCH=OFF >&2
cmake --build "$BUILD" -j2 --target rocksdb_test >&2

# halt_on_error: the first race fails the run, with its report.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  "$BUILD/tests/rocksdb_test" --gtest_brief=1 \
  --gtest_filter='*ConcurrencyTest.ManyThreadsOneReader/*:*ConcurrencyTest.ParallelBuildersFromOnePolicy/*'
