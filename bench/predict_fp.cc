// Prints the FP rate the core predicts for one filter block of a kind:
//
//   predict_fp <Kind> <bits_per_key> <num_keys>     e.g. predict_fp Ribbon 10 250000
//
// Pure core, no RocksDB: scripts/build-in-rocksdb.sh compiles it with the
// core sources of sstfilter.mk to check the FP rate that a db_bench built
// inside RocksDB measures, on machines without the standalone build.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "plugin/core/filter_builder.h"
#include "plugin/core/kind_ops.h"

int main(int argc, char** argv) {
  using sstfilter::FilterKind;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <Kind> <bits_per_key> <num_keys>\n", argv[0]);
    return 2;
  }
  sstfilter::FilterConfig config;
  bool found = false;
  for (int k = 0; k < 256 && !found; ++k) {
    const auto kind = static_cast<FilterKind>(k);
    if (sstfilter::OpsFor(kind) != nullptr &&
        std::strcmp(sstfilter::KindName(kind), argv[1]) == 0) {
      config.kind = kind;
      found = true;
    }
  }
  config.bits_per_key = std::atof(argv[2]);
  const long long num_keys = std::atoll(argv[3]);
  if (!found || !(config.bits_per_key > 0) || num_keys <= 0) {
    std::fprintf(stderr, "predict_fp: unknown kind or bad number\n");
    return 2;
  }
  const sstfilter::FilterBuilder builder(config);
  const size_t n = static_cast<size_t>(num_keys);
  std::printf("%.8g\n", builder.PredictedFpRate(n, builder.BytesForKeys(n)));
  return 0;
}
