#!/usr/bin/env bash
# Tries the README's two commands on a fresh minimal Debian 12 (debootstrap
# --variant=minbase, no compiler, none of our packages), in a chroot, from a
# clean clone of this repository's HEAD. Run as root; takes ~15-25 minutes.
#
#   bash scripts/fresh-machine-check.sh [DIR] [-- CMD...]
#
# DIR defaults to .deps/fresh. After `--`, each argument is a command run in
# the chroot instead of the README's two, e.g. the in-tree builds:
#   bash scripts/fresh-machine-check.sh .deps/fresh-in-tree -- \
#     "bash scripts/build-in-rocksdb.sh --version 7.8.3" \
#     "bash scripts/build-in-rocksdb.sh --version 7.8.3 --cmake"
#
# Debian packages come from the archive the host's apt is configured with.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.deps/fresh"
if [ $# -gt 0 ] && [ "$1" != -- ]; then DIR="$1"; shift; fi
CMDS=()
if [ $# -gt 0 ] && [ "$1" = -- ]; then shift; CMDS=("$@"); fi
log() { printf '[fresh] %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { log "run as root"; exit 1; }
command -v debootstrap >/dev/null || { apt-get update -q >&2; apt-get install -y -q debootstrap >&2; }

# First configured Debian archive (not the security one): deb822 URIs: or
# the one-line "deb URI bookworm ..." form.
MIRROR="$(awk 'BEGIN{RS=""} /Suites:[^\n]*bookworm([ \n]|$)/ {
             if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { s=substr($0, RSTART, RLENGTH);
             sub(/URIs:[ \t]*/, "", s); print s; exit } }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
if [ -z "$MIRROR" ]; then
  MIRROR="$(awk '$1=="deb" && $3=="bookworm" {print $2; exit}' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)"
fi
[ -n "$MIRROR" ] || { log "no bookworm deb entry found in /etc/apt"; exit 1; }

cleanup() {
  for m in dev/pts dev proc sys; do mountpoint -q "$DIR/$m" && umount -l "$DIR/$m" || true; done
}
trap cleanup EXIT

if [ ! -x "$DIR/usr/bin/apt-get" ]; then
  log "debootstrap minbase bookworm into $DIR"
  rm -rf "$DIR"
  debootstrap --variant=minbase bookworm "$DIR" "$MIRROR" >&2
fi
cp /etc/resolv.conf "$DIR/etc/resolv.conf"
mount -t proc proc "$DIR/proc"; mount --rbind /sys "$DIR/sys"; mount --rbind /dev "$DIR/dev"

log "clean clone of HEAD into $DIR/root/sstfilter"
rm -rf "$DIR/root/sstfilter"
git -C "$ROOT" archive --format=tar --prefix=sstfilter/ HEAD | tar -x -C "$DIR/root"

# The README's two commands, exactly as written there.
TEST_CMD="$(sed -n 's/^    \(bash scripts\/test\.sh.*\)$/\1/p' "$ROOT/README.md" | head -n1)"
MAIN_CMD="$(sed -n 's/^    \(bash scripts\/main\.sh.*\)$/\1/p' "$ROOT/README.md" | head -n1)"
[ -n "$TEST_CMD" ] && [ -n "$MAIN_CMD" ] || { log "README commands not found"; exit 1; }
[ ${#CMDS[@]} -gt 0 ] || CMDS=("$TEST_CMD" "$MAIN_CMD")
for cmd in "${CMDS[@]}"; do
  log "running in the chroot: $cmd"
  start=$(date +%s)
  chroot "$DIR" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /root/sstfilter && $cmd"
  log "passed in $(( $(date +%s) - start )) s: $cmd"
done
log "fresh machine: all ${#CMDS[@]} commands passed"
