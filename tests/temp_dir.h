// A fresh directory under /tmp for one test's database, removed with all it
// holds when the TempDir goes out of scope.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace sstfilter {
namespace test {

class TempDir {
 public:
  // `name` becomes part of the directory name: /tmp/<name>_XXXXXX.
  explicit TempDir(const std::string& name = "sstfilter_test") {
    std::string tmpl = "/tmp/" + name + "_XXXXXX";
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace test
}  // namespace sstfilter
