# Reading the stock db_bench's output (--statistics), for the scripts that
# drive it: bench/db_bench_*.sh and scripts/build-in-rocksdb.sh. Sourced.

# db_bench_ticker NAME FILE: the COUNT of ticker rocksdb.NAME in FILE, empty
# if FILE has none (e.g. db_bench_ticker bloom.filter.useful out.txt).
db_bench_ticker() {
  sed -n "s/^rocksdb\.$1 COUNT : //p" "$2" | head -n1
}
