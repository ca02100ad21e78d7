# Debian package helpers, sourced by scripts/setup.sh and
# scripts/build-in-rocksdb.sh.
#
#   missing_packages PKG...   prints the PKGs that are not installed
#   install_packages PKG...   apt-get update + install, non-interactive,
#                             without recommends (needs root)
missing_packages() {
  local p
  for p in "$@"; do
    # "ii" or, held with apt-mark hold, "hi": installed either way.
    dpkg-query -W -f='${db:Status-Abbrev}\n' "$p" 2>/dev/null | grep -q '^[ih]i' \
      || echo "$p"
  done
}

install_packages() {
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
}
