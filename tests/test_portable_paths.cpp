// A results document made portable (experiments/io/portable_paths.hpp): the paths of the machine
// that wrote it taken out, units and ratios left alone. The runner and `parlab migrate` write
// through it (test_migrate.cpp, tests/python/test_portable_results.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "experiments/io/portable_paths.hpp"

namespace parlab {
namespace {

using json = nlohmann::json;

const PathRoots kRoots{"/work/main/results", "/root"};

std::string portable(const std::string& text, int* count = nullptr) {
  int n = 0;
  std::string out = portable_text(text, kRoots, n);
  if (count != nullptr) *count = n;
  return out;
}

TEST(PortablePaths, UnitsRatiosAndTextWithoutPathsAreUntouched) {
  for (const char* text : {"GB/s", "samples/s", "flops/s", "muls/s", "bytes/s per thread", "1/2 of the roof",
                           "a 3/4 share", "N:<bytes>B:<threads>", "parlab-results/3", "r0:0-15 r1:0-15", "x / y",
                           "/", "/s", "see https://example.org/a/b", "", "…/likwid-bench", "~/.cache/x"}) {
    int n = -1;
    EXPECT_EQ(portable(text, &n), text);
    EXPECT_EQ(n, 0) << text;
  }
}

TEST(PortablePaths, UnderTheResultsRootIsRelativeToIt) {
  EXPECT_EQ(portable("/work/main/results/host/20260101T000000Z/results.json"), "host/20260101T000000Z/results.json");
  EXPECT_EQ(portable("/work/main/results"), ".");  // --out itself
  // Component by component: a sibling whose name starts the same is not under it.
  EXPECT_EQ(portable("/work/main/results-old/x"), "…/x");
}

TEST(PortablePaths, UnderHomeIsTilde) {
  EXPECT_EQ(portable("/root/.cache/parlab/ceilings/vm-6367f3e1b1ce-a4cd7cb012e9.json"),
            "~/.cache/parlab/ceilings/vm-6367f3e1b1ce-a4cd7cb012e9.json");
  EXPECT_EQ(portable("/rootless/x"), "…/x");
}

TEST(PortablePaths, ElsewhereKeepsOnlyItsLastComponent) {
  EXPECT_EQ(portable("/tmp/tmp.lgSZuLC6MW/results"), "…/results");
  EXPECT_EQ(portable("/tmp/v"), "…/v");
  EXPECT_EQ(portable("/work/main/build/babelstream/omp-stream/"), "…/omp-stream");
}

TEST(PortablePaths, SeveralPathsInOneStringEachBySeparators) {
  int n = 0;
  EXPECT_EQ(portable("likwid-bench at /work/main/build/offline-deps/usr/bin/likwid-bench (PARLAB_LIKWID_BENCH), "
                     "copy_mem_* / stream_mem_*: 5 GB/s; PATH += /work/main/build/offline-deps/usr/sbin (likwid-accessD)",
                     &n),
            "likwid-bench at …/likwid-bench (PARLAB_LIKWID_BENCH), copy_mem_* / stream_mem_*: 5 GB/s; "
            "PATH += …/sbin (likwid-accessD)");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(portable("interpreter not measured: /work/b/parlab (/work/b/parlab): no parlab binary at /work/b/parlab."),
            "interpreter not measured: …/parlab (…/parlab): no parlab binary at …/parlab.");
  EXPECT_EQ(portable("PATH=/opt/x/bin:/home/u/bin:/root/bin --out='/work/main/results/h'"),
            "PATH=/opt/x/bin:…/bin:~/bin --out='h'");
}

TEST(PortablePaths, SystemPathsAreKept) {
  int n = -1;
  const std::string text = "MPI jobs launched as: /usr/bin/mpirun --hostfile /etc/hosts; /proc/cpuinfo, "
                           "/sys/devices/system/cpu, /dev/shm, /opt/rocm/lib, /bin/sh, /lib/x86_64-linux-gnu/libc.so.6";
  EXPECT_EQ(portable(text, &n), text);
  EXPECT_EQ(n, 0);
  EXPECT_EQ(portable("/usr/bin/mpirun --hostfile /tmp/mh-hosts2 -np R"), "/usr/bin/mpirun --hostfile …/mh-hosts2 -np R");
}

TEST(PortablePaths, EveryStringValueOfADocumentIsMadePortableOnceAndForAll) {
  json doc = {{"schema", "parlab-results/5"},
              {"invocation", {"parlab", "run", "--out", "/work/main/results"}},
              {"context", {{"ceilings", {{"cache", "/root/.cache/parlab/ceilings/vm-1.json"}}},
                           {"python", {{"executable", "/usr/bin/python3"}}},
                           {"keys/are/names", 1}}},
              {"records", {{{"rate", {{"unit", "bytes/s"}}},
                            {"detail", "BabelStream omp-stream at /work/main/build/babelstream/omp-stream (x)"}}}}};
  EXPECT_EQ(make_portable(doc, kRoots), 3);
  EXPECT_EQ(doc["invocation"][3], ".");
  EXPECT_EQ(doc["context"]["ceilings"]["cache"], "~/.cache/parlab/ceilings/vm-1.json");
  EXPECT_EQ(doc["context"]["python"]["executable"], "/usr/bin/python3");
  EXPECT_TRUE(doc["context"].contains("keys/are/names"));
  EXPECT_EQ(doc["records"][0]["rate"]["unit"], "bytes/s");
  EXPECT_EQ(doc["records"][0]["detail"], "BabelStream omp-stream at …/omp-stream (x)");
  // Idempotent: what it wrote holds nothing it would change.
  const json once = doc;
  EXPECT_EQ(make_portable(doc, kRoots), 0);
  EXPECT_EQ(doc, once);
}

TEST(PortablePaths, TheRootsOfARunAreTheFolderTwoAboveItAndHome) {
  const char* home = std::getenv("HOME");
  const PathRoots r = PathRoots::of_run("/data/out/host/20260101T000000Z/");
  EXPECT_EQ(r.results, "/data/out");
  if (home != nullptr && std::string(home).size() > 1) {
    EXPECT_EQ(r.home.rfind('/', 0), 0u);
  }
  EXPECT_EQ(PathRoots::of_run("/a/b").results, "");  // "/" takes every path: no root
}

}  // namespace
}  // namespace parlab
