#!/usr/bin/env bash
# ctest private_apt_sources: the deb-src entries scripts/lib/private_apt.sh
# derives from apt configurations a Debian 12 machine may have (no network):
# one-line and deb822 entries, deb822 fields in any order and folded over
# lines, suites named stable/oldstable, and other archives' suites
# (bookworm-pgdg) left out; for the release itself and for the next one.
#
#   bash tests/private_apt_test.sh SOURCE_DIR WORK_DIR
set -euo pipefail
SRC="${1:?usage: private_apt_test.sh SOURCE_DIR WORK_DIR}"
WORK="${2:?usage: private_apt_test.sh SOURCE_DIR WORK_DIR}"
rm -rf "$WORK"; mkdir -p "$WORK/etc/sources.list.d"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$WORK/etc/sources.list" <<'LIST'
# the installer's lines
deb http://mirror.example/debian bookworm main contrib
deb [arch=amd64] http://mirror.example/debian bookworm-updates main
deb http://mirror.example/debian-security oldstable-security main
deb http://pg.example/apt bookworm-pgdg main
LIST
cat > "$WORK/etc/sources.list.d/debian.sources" <<'D822'
Suites: bookworm
 bookworm-updates
URIs: http://mirror.example/debian
Components: main
Types: deb
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://mirror.example/debian
Suites: bookworm
Components: main
D822
cat > "$WORK/etc/sources.list.d/pgdg.sources" <<'D822'
Types: deb
URIs: http://pg.example/apt
Suites: bookworm-pgdg
Components: main
D822
. "$SRC/scripts/lib/private_apt.sh"
export PRIVATE_APT_ETC="$WORK/etc" PRIVATE_APT_FROM=bookworm
key=/usr/share/keyrings/debian-archive-keyring.gpg

private_apt_sources "$WORK/same" bookworm || fail "no entries derived for bookworm"
got="$(cat "$WORK/same/sources.list")"
want="deb-src [signed-by=$key] http://mirror.example/debian bookworm main contrib
deb-src [arch=amd64 signed-by=$key] http://mirror.example/debian bookworm-updates main
deb-src [signed-by=$key] http://mirror.example/debian-security oldstable-security main"
[ "$got" = "$want" ] || fail "one-line entries for bookworm:
$got
want:
$want"
got="$(cat "$WORK/same/sources.list.d/debian.sources")"
grep -q '^Types: deb-src$' <<<"$got" || fail "deb822: no Types: deb-src in: $got"
grep -q '^Suites: bookworm bookworm-updates$' <<<"$got" || fail "deb822: folded suites lost in: $got"
[ "$(grep -c '^Types:' <<<"$got")" -eq 1 ] || fail "deb822: the deb-src stanza is not a deb one: $got"
grep -q "^Signed-By: $key$" <<<"$got" || fail "deb822: key lost: $got"
[ ! -s "$WORK/same/sources.list.d/pgdg.sources" ] || fail "another archive's suite kept: $(cat "$WORK/same/sources.list.d/pgdg.sources")"

private_apt_sources "$WORK/next" trixie || fail "no entries derived for trixie"
got="$(cat "$WORK/next/sources.list")"
want="deb-src [signed-by=$key] http://mirror.example/debian trixie main contrib
deb-src [arch=amd64 signed-by=$key] http://mirror.example/debian trixie-updates main"
[ "$got" = "$want" ] || fail "one-line entries for trixie:
$got
want:
$want"
grep -q '^Suites: trixie trixie-updates$' "$WORK/next/sources.list.d/debian.sources" ||
  fail "deb822 for trixie: $(cat "$WORK/next/sources.list.d/debian.sources")"
echo "private_apt_sources: ok"
