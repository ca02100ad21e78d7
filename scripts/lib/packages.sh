# Debian package helpers, sourced by scripts/setup.sh and
# scripts/build-in-rocksdb.sh.
#
#   missing_packages PKG...   prints the PKGs that are not installed
#   install_packages PKG...   apt-get update + install, non-interactive,
#                             without recommends (needs root)
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' \
      || echo "$p"
  done
}

install_packages() {
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
}
