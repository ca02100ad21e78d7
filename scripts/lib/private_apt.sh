# Private apt configuration for fetching Debian source packages without
# touching the system's apt sources or lists. Sourced by scripts/setup.sh
# (the installed RocksDB's own source package) and
# scripts/build-in-rocksdb.sh (7.8.3 from bookworm, 9.10.0 from trixie).
#
#   private_apt_sources DIR SUITE   writes DIR/sources.list{,.d} and sets
#                                   PRIVATE_APT_OPTS for apt-get/apt-cache
#
# deb-src entries for SUITE are derived from the system's own deb entries
# (one-line and deb822 formats): the system's release name in each suite
# (bookworm, bookworm-updates, bookworm-security) is replaced by SUITE;
# entries of other suites (third-party ones such as bookworm-pgdg) are left
# out. Entries without a key get the Debian archive keyring, which holds
# the keys of the current and the next release. No host name is written
# anywhere: every URI comes from /etc/apt.
#
#   private_apt_update              apt-get update with that configuration
PRIVATE_APT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# For the tests: where the system's apt configuration and release name are.
PRIVATE_APT_ETC="${PRIVATE_APT_ETC:-/etc/apt}"

# awk: the suites of one entry kept for SUITE `to` (space-separated, with a
# leading space), empty if none: the release `from` and its Debian suites
# (-updates, -security, -backports, -proposed-updates) renamed; when `to`
# is `from`, also the names stable, oldstable and oldoldstable (and those
# suites) kept as they are. Others (e.g. bookworm-pgdg) belong to other
# archives.
PRIVATE_APT_MAP_SUITES='
function map_suites(list,    n, w, j, out, rest) {
  out = ""
  n = split(list, w, /[ \t\n]+/)
  for (j = 1; j <= n; j++) {
    if (w[j] == "") continue
    if (w[j] == from) { out = out " " to; continue }
    if (index(w[j], from "-") == 1) {
      rest = substr(w[j], length(from) + 1)
      if (rest ~ /^-(updates|security|backports|backports-sloppy|proposed-updates)$/) out = out " " to rest
      continue
    }
    if (to == from && w[j] ~ /^(oldoldstable|oldstable|stable)(-updates|-security|-backports|-proposed-updates)?$/)
      out = out " " w[j]
  }
  return out
}'

private_apt_sources() {
  local dir="$1" to="$2" from f
  from="${PRIVATE_APT_FROM:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}"
  [ -n "$from" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
  rm -rf "$dir"
  mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
  : > "$dir/sources.list"
  for f in "$PRIVATE_APT_ETC/sources.list" "$PRIVATE_APT_ETC"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v from="$from" -v to="$to" -v key="$PRIVATE_APT_KEYRING" "$PRIVATE_APT_MAP_SUITES"'
      /^[ \t]*deb[ \t]/ {
        line = $0; sub(/^[ \t]*deb[ \t]+/, "", line); opts = ""
        if (line ~ /^\[/) { e = index(line, "]"); opts = substr(line, 2, e - 2)
                            line = substr(line, e + 1); sub(/^[ \t]+/, "", line) }
        n = split(line, w, /[ \t]+/)
        suite = map_suites(w[2])
        if (suite == "") next
        if (opts !~ /signed-by=/) opts = opts (opts == "" ? "" : " ") "signed-by=" key
        out = "deb-src [" opts "] " w[1] suite
        for (i = 3; i <= n; i++) out = out " " w[i]
        print out
      }' "$f" >> "$dir/sources.list"
  done
  for f in "$PRIVATE_APT_ETC"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # One stanza per record; a field may go on over lines that start with
    # white space (a folded Suites, an inline Signed-By key), and fields
    # come in any order.
    awk -v from="$from" -v to="$to" -v key="$PRIVATE_APT_KEYRING" "$PRIVATE_APT_MAP_SUITES"'
      BEGIN { RS = "" }
      {
        n = split($0, raw, "\n"); m = 0
        for (i = 1; i <= n; i++) {
          if (raw[i] ~ /^#/) continue
          if (raw[i] ~ /^[ \t]/ && m > 0) { l[m] = l[m] "\n" raw[i]; continue }
          l[++m] = raw[i]
        }
        deb = 0; signed = 0; kept = ""
        for (i = 1; i <= m; i++) {
          if (l[i] ~ /^Types:/ && l[i] ~ /[ \t\n]deb([ \t\n]|$)/) deb = 1
          else if (l[i] ~ /^Suites:/) kept = map_suites(substr(l[i], 8))
          else if (l[i] ~ /^Signed-By:/) signed = 1
        }
        if (!deb || kept == "") next
        out = ""
        for (i = 1; i <= m; i++) {
          line = l[i]
          if (line ~ /^Types:/) line = "Types: deb-src"
          else if (line ~ /^Suites:/) line = "Suites:" kept
          out = out line "\n"
        }
        if (!signed) out = out "Signed-By: " key "\n"
        printf "%s\n", out
      }' "$f" > "$dir/sources.list.d/$(basename "$f")"
  done
  grep -rqs '^deb-src\|^Types: deb-src' "$dir/sources.list" "$dir/sources.list.d" || {
    echo "no Debian deb entries in $PRIVATE_APT_ETC to derive $to deb-src entries from" >&2
    return 1
  }
  PRIVATE_APT_OPTS=(
    -o Dir::Etc::sourcelist="$dir/sources.list"
    -o Dir::Etc::sourceparts="$dir/sources.list.d"
    -o Dir::State::Lists="$dir/lists"
    -o Dir::Cache="$dir/cache"
    -o APT::Get::List-Cleanup=0
  )
}

# apt-get update with the private configuration. An archive that fails
# (e.g. another vendor's, under the release's name, whose key is not
# Debian's) is reported and does not stop us: only the source package's
# own archive must answer, and fetching the package says if it did not.
private_apt_update() {
  apt-get "${PRIVATE_APT_OPTS[@]}" update -q >&2 ||
    echo "apt-get update reported errors above; going on: only the archive that holds the source package is needed" >&2
}
