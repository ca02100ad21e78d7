# RocksDB as the imported target PkgConfig::ROCKSDB, found with pkg-config.
# Made by hand rather than with pkg_check_modules(... IMPORTED_TARGET): a
# self-built RocksDB's rocksdb.pc lists a relative include directory of its
# source tree (third-party/gtest-...), which CMake refuses in an imported
# target; only existing absolute directories are kept. Used by this
# project's build and by the installed sstfilterConfig.cmake.
find_package(PkgConfig REQUIRED)
pkg_check_modules(ROCKSDB QUIET rocksdb)
if(ROCKSDB_FOUND AND NOT TARGET PkgConfig::ROCKSDB)
  add_library(PkgConfig::ROCKSDB INTERFACE IMPORTED)
  set(_rocksdb_includes "")
  foreach(_dir IN LISTS ROCKSDB_INCLUDE_DIRS)
    if(IS_ABSOLUTE "${_dir}" AND IS_DIRECTORY "${_dir}")
      list(APPEND _rocksdb_includes "${_dir}")
    endif()
  endforeach()
  set_target_properties(PkgConfig::ROCKSDB PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_rocksdb_includes}"
    INTERFACE_LINK_LIBRARIES "${ROCKSDB_LINK_LIBRARIES}")
endif()
