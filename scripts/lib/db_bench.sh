# Reading the stock db_bench's output (--statistics), for the scripts that
# drive it: bench/db_bench_*.sh and scripts/build-in-rocksdb.sh. Sourced.

# db_bench_ticker NAME FILE: the COUNT of ticker rocksdb.NAME in FILE, empty
# if FILE has none (e.g. db_bench_ticker bloom.filter.useful out.txt).
db_bench_ticker() {
  sed -n "s/^rocksdb\.$1 COUNT : //p" "$2" | head -n1
}

# db_bench_require TOOL...: exits with a message unless every TOOL (of
# Debian's rocksdb-tools) is on the PATH.
db_bench_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool missing: apt-get install rocksdb-tools" >&2; exit 1; }
  done
}

# db_bench_options_header: the [Version] section an OPTIONS file for
# `db_bench --options_file` starts with.
db_bench_options_header() {
  printf '[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n'
}
