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
# entries whose suites are not named after the release (third-party
# repositories) are left out. Entries without a key get the Debian archive
# keyring, which holds the keys of the current and the next release. No
# host name is written anywhere: every URI comes from /etc/apt.
PRIVATE_APT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

private_apt_sources() {
  local dir="$1" to="$2" from f
  from="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$from" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
  rm -rf "$dir"
  mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
  : > "$dir/sources.list"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v from="$from" -v to="$to" -v key="$PRIVATE_APT_KEYRING" '
      /^[ \t]*deb[ \t]/ {
        line = $0; sub(/^[ \t]*deb[ \t]+/, "", line); opts = ""
        if (line ~ /^\[/) { e = index(line, "]"); opts = substr(line, 2, e - 2)
                            line = substr(line, e + 1); sub(/^[ \t]+/, "", line) }
        n = split(line, w, /[ \t]+/); suite = w[2]
        if (suite == from) suite = to
        else if (index(suite, from "-") == 1) suite = to substr(suite, length(from) + 1)
        else next
        if (opts !~ /signed-by=/) opts = opts (opts == "" ? "" : " ") "signed-by=" key
        out = "deb-src [" opts "] " w[1] " " suite
        for (i = 3; i <= n; i++) out = out " " w[i]
        print out
      }' "$f" >> "$dir/sources.list"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v from="$from" -v to="$to" -v key="$PRIVATE_APT_KEYRING" '
      BEGIN { RS = "" }
      {
        n = split($0, l, "\n"); deb = 0; signed = 0; out = ""
        for (i = 1; i <= n; i++) {
          line = l[i]
          if (line ~ /^Types:/) {
            if (line ~ /[ \t]deb([ \t]|$)/) deb = 1
            line = "Types: deb-src"
          } else if (line ~ /^Suites:/) {
            m = split(substr(line, 8), s, /[ \t]+/); kept = ""
            for (j = 1; j <= m; j++) {
              if (s[j] == from) kept = kept " " to
              else if (index(s[j], from "-") == 1) kept = kept " " to substr(s[j], length(from) + 1)
            }
            if (kept == "") deb = 0
            line = "Suites:" kept
          } else if (line ~ /^Signed-By:/) signed = 1
          out = out line "\n"
        }
        if (!deb) next
        if (!signed) out = out "Signed-By: " key "\n"
        printf "%s\n", out
      }' "$f" > "$dir/sources.list.d/$(basename "$f")"
  done
  grep -rqs '^deb-src\|^Types: deb-src' "$dir/sources.list" "$dir/sources.list.d" || {
    echo "no Debian deb entries in /etc/apt to derive $to deb-src entries from" >&2
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
