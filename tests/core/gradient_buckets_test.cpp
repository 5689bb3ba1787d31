// Megatron-Core's gradient buckets (overlap_grad_reduce): where a chunk's gradient is cut and
// which ops of a stage's schedule make, wait for and exchange them, counted by hand.
#include "core/programs/gradient_buckets.hpp"

#include <gtest/gtest.h>

#include "core/parallel/model_split.hpp"

namespace scaleout::core {
namespace {

TEST(GradientBuckets, MegatronCoresDefaultSizeGrowsWithTheDataGroup) {
  EXPECT_EQ(megatron_bucket_parameters(8), 40e6);
  EXPECT_EQ(megatron_bucket_parameters(40), 40e6);
  EXPECT_EQ(megatron_bucket_parameters(64), 64e6);
}

TEST(GradientBuckets, ABucketClosesAtTheFirstLayerEndThatFillsIt) {
  // 100 bytes over 4 layers: 25 a layer. Buckets of 40 close after layers 1 and 3 (50 each).
  std::vector<GradientBucket> b = chunk_buckets(100, 4, 40, 0);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].after_layer, 1);
  EXPECT_EQ(b[0].offset, 0);
  EXPECT_EQ(b[0].bytes, 50);
  EXPECT_EQ(b[1].after_layer, 3);
  EXPECT_EQ(b[1].offset, 50);
  EXPECT_EQ(b[1].bytes, 50);
  // Buckets of 60: the first closes after layer 2 (75); the last holds the 25 left.
  b = chunk_buckets(100, 4, 60, 1);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].after_layer, 2);
  EXPECT_EQ(b[0].offset, 100);  // chunk 1 starts after chunk 0's 100 bytes
  EXPECT_EQ(b[0].bytes, 75);
  EXPECT_EQ(b[1].bytes, 25);
  EXPECT_EQ(b[1].chunk, 1);
  // One byte a bucket: a bucket a layer. A size above the chunk: one bucket at the end.
  EXPECT_EQ(chunk_buckets(100, 4, 1, 0).size(), 4u);
  b = chunk_buckets(100, 4, 1000, 0);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].after_layer, 3);
  EXPECT_EQ(b[0].bytes, 100);
}

// Two stages of `chunks` chunks of `layers` layers each, `microbatches` a replica.
ModelSplit split(int layers, int chunks, int microbatches) {
  ModelSplit s;
  s.pipeline = 2;
  s.layers_per_chunk = layers, s.chunks = chunks, s.microbatches = microbatches;
  return s;
}

TEST(GradientBuckets, OnlyTheLastMicroBatchsBackwardMakesThemAndItsLaterLayersTakeThem) {
  ModelParallelWork w;
  w.gradient_bytes = 300;  // one chunk of 3 layers: 100 bytes a layer, a bucket a layer
  w.bucket_bytes = 1;
  BucketQueue q(w, split(3, 1, 2), 0);
  PipeOp forward{PipeOp::Kind::kForward, 1, 0};
  PipeOp first_backward{PipeOp::Kind::kBackward, 0, 0};
  PipeOp last_backward{PipeOp::Kind::kBackward, 1, 0};
  EXPECT_FALSE(q.walks(forward));
  EXPECT_FALSE(q.walks(first_backward));
  q.layer_done(first_backward, 2);  // makes nothing
  GradientBucket b;
  EXPECT_FALSE(q.take(first_backward, b));
  ASSERT_TRUE(q.walks(last_backward));
  EXPECT_FALSE(q.take(last_backward, b));  // layer 0 computes beside nothing
  q.layer_done(last_backward, 0);
  EXPECT_FALSE(q.take(forward, b));       // another op takes none
  ASSERT_TRUE(q.take(last_backward, b));  // layer 1 beside layer 0's bucket
  EXPECT_EQ(b.offset, 0);
  EXPECT_EQ(b.bytes, 100);
  q.layer_done(last_backward, 1);
  ASSERT_TRUE(q.take(last_backward, b));  // layer 2 beside layer 1's
  EXPECT_EQ(b.offset, 100);
  q.layer_done(last_backward, 2);  // the last layer's waits for the end of the schedule
  EXPECT_FALSE(q.walks(forward));
  std::vector<GradientBucket> rest = q.rest();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].offset, 200);
  EXPECT_FALSE(q.take(last_backward, b));
}

// A chunk's last backward takes only its own chunk's buckets: another chunk's one bucket, left
// waiting, goes to the end of the schedule.
TEST(GradientBuckets, AnOpTakesOnlyItsOwnChunksBuckets) {
  ModelParallelWork w;
  w.gradient_bytes = 400;  // 2 chunks of 2 layers
  w.bucket_bytes = 1;
  BucketQueue q(w, split(2, 2, 1), 0);
  PipeOp chunk0{PipeOp::Kind::kBackward, 0, 0}, chunk1{PipeOp::Kind::kBackward, 0, 1};
  q.layer_done(chunk1, 0);
  q.layer_done(chunk1, 1);  // chunk 1's one bucket waits
  GradientBucket b;
  EXPECT_FALSE(q.take(chunk0, b));
  q.layer_done(chunk0, 0);
  ASSERT_TRUE(q.take(chunk0, b));
  EXPECT_EQ(b.chunk, 0);
  q.layer_done(chunk0, 1);
  std::vector<GradientBucket> rest = q.rest();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].chunk, 1);
  EXPECT_EQ(rest[1].chunk, 0);
}

// Megatron-Core cuts only the first stage's first chunk into buckets; every other stage and chunk
// is one bucket, made by its last layer.
TEST(GradientBuckets, OnlyTheFirstStagesFirstChunkIsCut) {
  ModelParallelWork w;
  w.gradient_bytes = 400;  // 2 chunks of 2 layers: 200 bytes a chunk, 100 a layer
  w.bucket_bytes = 1;
  PipeOp chunk0{PipeOp::Kind::kBackward, 0, 0}, chunk1{PipeOp::Kind::kBackward, 0, 1};
  BucketQueue first(w, split(2, 2, 1), 0);
  first.layer_done(chunk0, 0);
  first.layer_done(chunk1, 0);
  std::vector<GradientBucket> made = first.rest();
  ASSERT_EQ(made.size(), 1u);  // chunk 0's first layer's; chunk 1's waits for its last layer
  EXPECT_EQ(made[0].bytes, 100);
  first.layer_done(chunk1, 1);
  made = first.rest();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].offset, 200);
  EXPECT_EQ(made[0].bytes, 200);
  BucketQueue later(w, split(2, 2, 1), 1);
  later.layer_done(chunk0, 0);
  EXPECT_TRUE(later.rest().empty());
  later.layer_done(chunk0, 1);
  made = later.rest();
  ASSERT_EQ(made.size(), 1u);
  EXPECT_EQ(made[0].bytes, 200);
}

}  // namespace
}  // namespace scaleout::core
