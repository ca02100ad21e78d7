# Make-only settings for building sstfilter inside RocksDB
# (make ROCKSDB_PLUGINS=sstfilter ...; see README "Building sstfilter into
# RocksDB"). The source list and the registrar are in sstfilter.mk, which
# RocksDB's make includes as well.

# Our sources include each other as "plugin/core/..." from the repository
# root, which is plugin/sstfilter inside RocksDB's tree. RocksDB's own -I.
# comes first, and its tree has no plugin/core or plugin/rocksdb, so nothing
# of RocksDB is shadowed. <xxhash.h> (header-only, XXH_INLINE_ALL) is the
# system's libxxhash-dev header: RocksDB keeps its copy as util/xxhash.h.
sstfilter_CXXFLAGS += -I./plugin/sstfilter
