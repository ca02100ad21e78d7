#!/usr/bin/env bash
# Prepares a Debian 12 machine to build and test sstfilter:
#   1. installs the build tools and libraries from Debian's archive (as root:
#      only when some are missing);
#   2. fetches table/block_based/filter_policy_internal.h from the RocksDB
#      source package of exactly the installed librocksdb-dev version.
#
# Why 2: FilterBitsBuilder/FilterBitsReader are internal since RocksDB 7.0 and
# their vtable layout changes between versions, so the header must match the
# installed library byte for byte (CMake re-checks the version).
#
# The source package is fetched through a private apt configuration under
# .deps/apt (scripts/lib/private_apt.sh): deb-src entries are derived from
# the system's configured deb entries (one-line and deb822 formats), the
# system's sources and lists are left untouched. Everything is cached under .deps/ (ignored by git), so a
# second run does no network work.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEPS="$ROOT/.deps"
HEADER_REL="table/block_based/filter_policy_internal.h"

log() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

PACKAGES=(
  build-essential cmake pkg-config dpkg-dev ca-certificates git
  librocksdb-dev rocksdb-tools
  libgflags-dev libgtest-dev libgmock-dev libbenchmark-dev libxxhash-dev zlib1g-dev
  clang libclang-rt-14-dev gnuplot-nox
  libjemalloc2
)

. "$ROOT/scripts/lib/packages.sh"
mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "run as root: it installs these missing Debian packages: ${missing[*]}"
  log "installing: ${missing[*]}"
  install_packages "${missing[@]}"
else
  log "all packages present"
fi

# Exact version of the installed RocksDB: the source package it came from.
SRC_VERSION="$(dpkg-query -W -f='${source:Version}' librocksdb-dev)"
UPSTREAM="${SRC_VERSION%%-*}"
UPSTREAM="${UPSTREAM#*:}"
DEST="$DEPS/rocksdb-$SRC_VERSION"
if [ -f "$DEST/$HEADER_REL" ]; then
  log "RocksDB $SRC_VERSION internal header cached: $DEST/$HEADER_REL"
else
  APT="$DEPS/apt"
  # deb-src entries for this release, derived from the system's deb entries.
  . "$ROOT/scripts/lib/private_apt.sh"
  private_apt_sources "$APT" "$(. /etc/os-release && echo "${VERSION_CODENAME:-}")" \
    || die "cannot derive deb-src entries from /etc/apt"
  mkdir -p "$APT/src"
  log "fetching the rocksdb $SRC_VERSION source package (private apt state in $APT)"
  private_apt_update
  ( cd "$APT/src" && apt-get "${PRIVATE_APT_OPTS[@]}" source -q "rocksdb=$SRC_VERSION" >&2 ) ||
    die "cannot fetch the rocksdb $SRC_VERSION source package through deb-src entries derived from /etc/apt (see above)"
  tree="$(find "$APT/src" -mindepth 1 -maxdepth 1 -type d -name "rocksdb-$UPSTREAM*" | head -n1)"
  [ -n "$tree" ] && [ -f "$tree/$HEADER_REL" ] || die "source package unpacked without $HEADER_REL"
  rm -rf "$DEST"
  mv "$tree" "$DEST"
  rm -rf "$APT/src"
  log "RocksDB source tree: $DEST"
fi
ln -sfn "rocksdb-$SRC_VERSION" "$DEPS/rocksdb-src"
log "ready: RocksDB $SRC_VERSION, internal header at .deps/rocksdb-src/$HEADER_REL"
