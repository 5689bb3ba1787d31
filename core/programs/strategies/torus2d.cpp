// Sony's 2D-torus all-reduce (Mikami et al. 2018): workers form a grid of Y rows of X;
// reduce-scatter along rows, all-reduce the owned segment along columns, all-gather along rows.
#include "core/programs/strategies/ring_phases.hpp"
#include "core/programs/strategies/strategies.hpp"

namespace scaleout::core {

namespace {

class Torus2d : public StrategyProgram {
 public:
  explicit Torus2d(std::array<int, 2> grid) : x_(grid[0]), y_(grid[1]) {}

  void run(Fabric& fabric, Span bucket) override {
    int r = fabric.rank(), row = r / x_, col = r % x_;
    RingGroup row_ring = strided_ring(row * x_, 1, x_, col);
    RingGroup col_ring = strided_ring(col, x_, y_, row);

    ring_reduce_scatter(fabric, row_ring, bucket);
    ring_allreduce(fabric, col_ring, split_part(bucket, x_, owned_segment(row_ring)));
    ring_allgather(fabric, row_ring, bucket);
  }

  std::string describe() const override {
    return "torus2d " + std::to_string(x_) + "x" + std::to_string(y_) +
           ": row reduce-scatter, column all-reduce, row all-gather";
  }

 private:
  int x_, y_;
};

}  // namespace

std::unique_ptr<StrategyProgram> make_torus2d(const RankLayout&, std::array<int, 2> grid) {
  return std::make_unique<Torus2d>(grid);
}

}  // namespace scaleout::core
