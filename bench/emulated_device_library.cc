// libsstfilter_emulated_device.so: production_bench's emulated device for
// the stock db_bench. Preloaded (LD_PRELOAD) beside libsstfilter.so, it
// registers a file system in RocksDB's object registry, which db_bench
// finds through `--fs_uri=sstfilter.EmulatedDevice:MEDIAN,MEAN` (µs). Not
// installed: a benchmark's tool, not part of the plugin.
#include <rocksdb/file_system.h>
#include <rocksdb/utilities/object_registry.h>

#include <memory>
#include <string>

#include "bench/emulated_device.h"

namespace sstfilter::bench {
namespace {

namespace rdb = ROCKSDB_NAMESPACE;

int Register() {
  rdb::ObjectLibrary::Default()->AddFactory<rdb::FileSystem>(
      rdb::ObjectLibrary::PatternEntry(kEmulatedDeviceId, false).AddSeparator(":", true),
      [](const std::string& uri, std::unique_ptr<rdb::FileSystem>* guard,
         std::string* errmsg) -> rdb::FileSystem* {
        double median_us = 0, mean_us = 0;
        std::string error;
        const std::string model = uri.substr(sizeof(kEmulatedDeviceId));  // past the ':'
        if (!ParseLatencyModel(model, &median_us, &mean_us, &error)) {
          *errmsg = std::string(kEmulatedDeviceId) + ": " + error;
          return nullptr;
        }
        *guard = NewEmulatedDeviceFileSystem(LatencyModel(median_us, mean_us), 0);
        return guard->get();
      });
  return 0;
}

const int registered = Register();

}  // namespace
}  // namespace sstfilter::bench
