#!/usr/bin/env bash
# Configures and builds sstfilter into build/ (Release) or, with --sanitize,
# into build-asan/ (Debug info, -O1, ASan + UBSan). Needs scripts/setup.sh
# to have run once.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="$(nproc 2>/dev/null || echo 2)"
if [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSSTFILTER_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >&2
  cmake --build build-asan -j"$JOBS" >&2
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSSTFILTER_SANITIZE=OFF \
    -DSSTFILTER_BUILD_TESTS=ON -DSSTFILTER_BUILD_BENCH=ON >&2
  cmake --build build -j"$JOBS" >&2
fi
