# The C++ standard RocksDB's headers need, for the scripts that compile
# against a RocksDB (CMakeLists.txt states the same rule for the build).
# Sourced.

# rocksdb_cxx_std VERSION: c++20 for RocksDB 10.7 and later, else c++17.
rocksdb_cxx_std() {
  if [ "$(printf '10.7\n%s\n' "$1" | sort -V | head -n1)" = 10.7 ]; then
    echo c++20
  else
    echo c++17
  fi
}
