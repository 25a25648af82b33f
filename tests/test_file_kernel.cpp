// The one rule that tells a Python kernel file (`-k path/to/file.py[:name]`) from any other kernel
// name, and the roof a file kernel's record gets with and without WORK.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/file_kernel.hpp"
#include "core/workload.hpp"
#include "experiments/machine/limit.hpp"
#include "record_fields.hpp"

namespace parlab {
namespace {

TEST(FileKernelName, PathAlone) {
  const auto k = parse_file_kernel("examples/python-gil/kernel.py");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->path, "examples/python-gil/kernel.py");
  EXPECT_EQ(k->function, "chunk");
  EXPECT_TRUE(is_file_kernel("/abs/k.py"));
  EXPECT_TRUE(is_file_kernel("k.py"));
}

TEST(FileKernelName, PathAndFunction) {
  const auto k = parse_file_kernel("/tmp/a.b/kernel.py:my_chunk2");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->path, "/tmp/a.b/kernel.py");
  EXPECT_EQ(k->function, "my_chunk2");
}

TEST(FileKernelName, HostileNamesAreNotFiles) {
  for (const char* name : {"pi", "triad", "py_count_racy", ".py", "kernel.pyc", "kernel.py:", "kernel.py:2x",
                           "kernel.py:a-b", "kernel.txt:chunk", ":chunk", "", "a.py:b:c", "kernel.py :x"}) {
    EXPECT_FALSE(is_file_kernel(name)) << name;
  }
}

TEST(FileKernelName, ItsRecordsFamilyIsOwn) {
  EXPECT_EQ(kernel_family("/k.py", nullptr), "own");
  EXPECT_EQ(kernel_family("k.py:body", nullptr), "own");
  EXPECT_EQ(kernel_family("pi", nullptr), "pi");
}

TEST(FileKernelName, ExecutorsAreThePythonOnes) {
  EXPECT_TRUE(runs_file_kernels("py-pure-threads"));
  EXPECT_TRUE(runs_file_kernels("py-processes"));
  EXPECT_TRUE(runs_file_kernels("py-dask-distributed"));
  EXPECT_FALSE(runs_file_kernels("py-parlab-gil-released"));  // its body is parlab.pi
  EXPECT_FALSE(runs_file_kernels("threads"));
}

nlohmann::json file_record(double bytes, double flops) {
  return {{"status", "ok"},     {"kernel", "/k.py"},  {"kernel_file", "/k.py"}, {"kernel_sha256", std::string(64, 'a')},
          {"backend", "py-pure-threads"}, {"kind", "python"}, {"processor", "cpu"}, {"threads", 1},
          {"precision", "double"},
          {"work", {{"samples", 100.0}, {"bytes", bytes}, {"flops", flops}}},
          {"rate", {{"samples_per_s", 1e6}, {"bytes_per_s", bytes * 1e4}, {"flops_per_s", flops * 1e4}}}};
}

TEST(FileKernelRoof, WithoutWorkItSaysWhy) {
  const nlohmann::json limit = test::limit_of(file_record(0, 0), nlohmann::json::object());
  ASSERT_TRUE(limit.is_object());
  EXPECT_TRUE(limit["roof"].is_null());
  EXPECT_NE(limit["reason"].get<std::string>().find("declares no WORK"), std::string::npos) << limit.dump();
}

TEST(FileKernelRoof, WithWorkItLooksForTheRoofItNames) {
  // No ceilings measured: the FMA roof WORK's flops name is looked for, and its absence said.
  const nlohmann::json limit = test::limit_of(file_record(0, 500), nlohmann::json::object());
  ASSERT_TRUE(limit.is_object());
  EXPECT_EQ(limit["reason"].get<std::string>().find("declares no WORK"), std::string::npos) << limit.dump();
}

}  // namespace
}  // namespace parlab
