// Where a process stands in a job started by mpirun, srun or a TF_CONFIG cluster spec.
#include "exec/cluster_spec.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/plan/input_error.hpp"

namespace scaleout::exec {
namespace {

// Sets the launchers' variables for one test and clears them after.
class Environment : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* v : {"TF_CONFIG", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",
                          "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS"})
      ::unsetenv(v);
  }
};

TEST_F(Environment, NothingSetMeansNoExternalLauncher) {
  EXPECT_FALSE(external_rank_from_environment());
}

TEST_F(Environment, TfConfigNumbersChiefAndWorkersFirstThenTheParameterServers) {
  const char* cluster =
      R"("cluster": {"chief": ["c0:2222"], "worker": ["w0:2222", "w1:2222"], "ps": ["p0:2222"]})";
  ::setenv("TF_CONFIG",
           (std::string("{") + cluster + R"(, "task": {"type": "ps", "index": 0}})").c_str(), 1);
  auto r = external_rank_from_environment();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->size, 4);
  EXPECT_EQ(r->servers, 1);
  EXPECT_EQ(r->hostname, "p0");
  ::setenv("TF_CONFIG",
           (std::string("{") + cluster + R"(, "task": {"type": "worker", "index": 1}})").c_str(),
           1);
  r = external_rank_from_environment();
  EXPECT_EQ(r->rank, 2);
  EXPECT_EQ(r->hostname, "w1");
}

TEST_F(Environment, MalformedTfConfigIsAnInputError) {
  for (const char* text :
       {"not json", R"({"cluster": {}})", R"({"cluster": {"worker": "w0"}, "task": {}})",
        R"({"cluster": {"worker": [7]}, "task": {"type": "worker", "index": 0}})",
        R"({"cluster": {"worker": ["w0:1"]}, "task": {"type": "worker", "index": 3}})",
        R"({"cluster": {"worker": ["w0:1"]}, "task": {"type": 5, "index": 0}})"}) {
    ::setenv("TF_CONFIG", text, 1);
    EXPECT_THROW(external_rank_from_environment(), core::InputError) << text;
  }
}

TEST_F(Environment, MpirunAndSrunVariables) {
  ::setenv("SLURM_PROCID", "2", 1);
  ::setenv("SLURM_NTASKS", "8", 1);
  auto r = external_rank_from_environment();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->rank, 2);
  EXPECT_EQ(r->size, 8);
  EXPECT_EQ(r->servers, -1);
  ::setenv("OMPI_COMM_WORLD_RANK", "5", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "4",
           1);  // mpirun's come first, and a rank past the size is refused
  EXPECT_THROW(external_rank_from_environment(), core::InputError);
}

}  // namespace
}  // namespace scaleout::exec
