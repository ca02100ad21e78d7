# Make-only settings for building sstfilter inside RocksDB
# (make ROCKSDB_PLUGINS=sstfilter ...; see docs/BUILDING.md). The source
# list and the registrar are in sstfilter.mk, which RocksDB's make includes
# as well.

# Our sources include each other as "plugin/core/..." from the repository
# root, which is plugin/sstfilter inside RocksDB's tree. RocksDB's make puts
# plugin flags BEFORE its own -I. -I./include, and for every file it
# compiles, so this repository's root must never get a top-level directory
# named like one of RocksDB's (db, table, util, include, port, cache, ...)
# or a header RocksDB includes. <xxhash.h> (header-only, XXH_INLINE_ALL)
# then resolves to the system's libxxhash-dev header; RocksDB keeps its
# own copy as util/xxhash.h.
sstfilter_CXXFLAGS += -I./plugin/sstfilter
# zlib's crc32 (format version 3's check): RocksDB's make links -lz only
# when it finds zlib, which a plugin cannot rely on.
sstfilter_LDFLAGS += -lz
