// The Gloo fabric on its own, two ranks on loopback (threads of this process): transfers add or
// overwrite in the gradient's precision, pipelined ring steps, messages, produced gradients and
// the compute stream.
#include "exec/gloo_fabric.hpp"

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <thread>

namespace scaleout::exec {
namespace {

namespace fs = std::filesystem;

// Runs `body(rank, fabric, data)` on two connected ranks with `elements` of `type` each.
void on_two_ranks(ElementType type, std::int64_t elements, std::int64_t chunk,
                  const std::function<void(int, GlooFabric&, GradientBuffer&)>& body) {
  fs::path store = fs::path(::testing::TempDir()) / ("gloo-fabric-" + std::to_string(::getpid()));
  fs::remove_all(store);
  fs::create_directories(store);
  core::CheckValues values(2, 1,
                           type == ElementType::kFp32   ? "fp32"
                           : type == ElementType::kFp16 ? "fp16"
                                                        : "bf16");
  std::vector<std::string> errors(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      try {
        gloo::rendezvous::FileStore files(store.string());
        auto device = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr("127.0.0.1"));
        auto context = std::make_shared<gloo::rendezvous::Context>(r, 2);
        context->connectFullMesh(files, device);
        GradientBuffer data(type, elements);
        GlooFabric fabric(context, data, values, std::chrono::milliseconds(10000), chunk);
        body(r, fabric, data);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  fs::remove_all(store);
  EXPECT_EQ(errors, std::vector<std::string>(2));
}

TEST(GlooFabric, AReceiveAddsOrOverwritesInEachPrecision) {
  for (ElementType type : {ElementType::kFp32, ElementType::kFp16, ElementType::kBf16})
    on_two_ranks(type, 100, 0, [&](int r, GlooFabric& f, GradientBuffer& d) {
      for (std::int64_t i = 0; i < 100; ++i)
        d.set(i, static_cast<float>(r + 1));  // 1 on rank 0, 2 on rank 1
      int peer = 1 - r;
      // Both send [0, 50), each adds what it got: 3 everywhere in the range.
      f.wait_all({f.post_recv(peer, {0, 50}, core::Combine::kAdd), f.post_send(peer, {0, 50})});
      f.end_bucket();
      // Rank 0 overwrites [50, 100) with rank 1's values.
      if (r == 0) f.wait_all({f.post_recv(1, {50, 50}, core::Combine::kReplace)});
      if (r == 1) f.wait_all({f.post_send(0, {50, 50})});
      f.end_bucket();
      EXPECT_EQ(d.get(0), 3.0f) << element_name(type);
      EXPECT_EQ(d.get(49), 3.0f);
      EXPECT_EQ(d.get(99), 2.0f) << "rank " << r;
    });
}

TEST(GlooFabric, PipelinedRingStepsSendWhatTheyReceived) {
  // Chunks of 7 elements: a two-step chain where step 1 forwards what step 0 received.
  on_two_ranks(ElementType::kFp32, 64, 7, [&](int r, GlooFabric& f, GradientBuffer& d) {
    for (std::int64_t i = 0; i < 64; ++i) d.set(i, static_cast<float>((r + 1) * 10 + i % 3));
    int peer = 1 - r;
    core::Span a{0, 32}, b{32, 32};
    core::Span mine = r == 0 ? a : b, theirs = r == 0 ? b : a;
    // Step 0 reduces: send my half, add theirs into it. Step 1 gathers: send the sum, take theirs.
    f.exchange_steps(peer, peer, 2, [&](int s) {
      return s == 0 ? core::ExchangeStep{theirs, mine, core::Combine::kAdd}
                    : core::ExchangeStep{mine, theirs, core::Combine::kReplace};
    });
    f.end_bucket();
    for (std::int64_t i = 0; i < 64; ++i)
      EXPECT_EQ(d.get(i), static_cast<float>(30 + 2 * (i % 3))) << i;
  });
}

TEST(GlooFabric, MessagesCarryTheirRangeAndProducedGradientsAreTheKnownValues) {
  on_two_ranks(ElementType::kFp16, 40, 0, [&](int r, GlooFabric& f, GradientBuffer& d) {
    core::CheckValues values(2, 1, "fp16");
    f.produce_gradient({0, 40});
    EXPECT_EQ(d.get(7), values.value(r, 7));
    if (r == 1) {
      f.send_message(0, {1, 42, 5, 6, core::Span{10, 20}});
      f.flush_messages();
    } else {
      core::Message m = f.receive_message();
      EXPECT_EQ(m.from, 1);
      EXPECT_EQ(m.kind, 42);
      EXPECT_EQ(m.a, 5);
      EXPECT_EQ(m.data, (core::Span{10, 20}));
      f.accept_data(core::Combine::kAdd);
      EXPECT_EQ(d.get(15), values.value(0, 15) + values.value(1, 15));
      EXPECT_EQ(d.get(35), values.value(0, 35));  // outside the message's range: untouched
    }
  });
}

// compute_async queues and returns: the caller goes on (to its exchanges) while the stream
// computes, and the stream runs its phases one after another. Each phase is an emulated 0.2 s wait,
// so a compute_async that waited for its phase would return after the phase ended.
TEST(GlooFabric, ComputeAsyncReturnsBeforeItsComputeEndsAndPhasesRunInOrder) {
  on_two_ranks(ElementType::kFp32, 8, 0, [&](int, GlooFabric& f, GradientBuffer&) {
    f.emulate_device(1e9);
    double t0 = f.now();
    auto a = f.compute_async(2e8), b = f.compute_async(2e8);
    double queued = f.now();
    double done_a = f.wait_compute(a), done_b = f.wait_compute(b);
    EXPECT_LT(queued, done_a) << "compute_async waited for its compute to end";
    EXPECT_GE(done_a - t0, 0.2 * 0.95);
    EXPECT_GE(done_b - done_a, 0.2 * 0.95) << "the second phase ran beside the first";
  });
}

}  // namespace
}  // namespace scaleout::exec
