//===- StageRingTest.cpp - The TMA pipeline's ring arithmetic -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// StageRing's index arithmetic (the next place in the ring, the index of a
// stage's `empty` mbarrier), built as IR and evaluated by folding, on every
// stage and phase of rings of 2 to 5 stages: a wrong wrap or a phase that
// does not flip deadlocks a pipeline on the GPU.
//
//===----------------------------------------------------------------------===//

#include "FoldingTest.h"

#include "../../lib/Conversion/TileToGPU/Strategies/Tma.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class StageRingTest : public FoldingTest {
protected:
  StageRingTest() {
    FailureOr<TargetInfo> target = TargetInfo::parse("sm_90a");
    EXPECT_TRUE(succeeded(target));
    plan.target = *target;
    plan.threads = 128;
  }

  KernelPlan plan;
};

TEST_F(StageRingTest, AdvanceWrapsAndFlipsThePhase) {
  KernelContext k(plan);
  for (int64_t stages = 2; stages <= 5; ++stages) {
    // (stage, phase as 0/1) -> the next place and `empty`'s index.
    Block *body = newFunction(2);
    StageRing ring(k, /*barriers=*/Value(), stages);
    Value phase = arith::IndexCastOp::create(b, loc, b.getI1Type(),
                                             body->getArgument(1));
    RingPosition next = ring.advance(b, loc, {body->getArgument(0), phase});
    Value empty = ring.getEmpty(b, loc, body->getArgument(0));
    for (int64_t stage = 0; stage < stages; ++stage)
      for (int64_t p = 0; p < 2; ++p) {
        bool wraps = stage + 1 == stages;
        EXPECT_EQ(evaluate(next.stage, {stage, p}), wraps ? 0 : stage + 1)
            << stages << " stages, stage " << stage;
        EXPECT_EQ(evaluate(next.phase, {stage, p}), wraps ? 1 - p : p)
            << stages << " stages, stage " << stage << ", phase " << p;
        EXPECT_EQ(evaluate(empty, {stage, p}), stages + stage);
      }
  }
}

TEST_F(StageRingTest, EveryPlaceComesBackAfterTwoRounds) {
  // Walking the ring from (0, 0): a stage's phase alternates each round,
  // and after 2 x stages steps the walk is back where it started.
  KernelContext k(plan);
  int64_t stages = 3;
  Block *body = newFunction(2);
  StageRing ring(k, /*barriers=*/Value(), stages);
  Value phase = arith::IndexCastOp::create(b, loc, b.getI1Type(),
                                           body->getArgument(1));
  RingPosition next = ring.advance(b, loc, {body->getArgument(0), phase});
  int64_t stage = 0, p = 0;
  for (int64_t step = 1; step <= 2 * stages; ++step) {
    int64_t s = evaluate(next.stage, {stage, p});
    p = evaluate(next.phase, {stage, p});
    stage = s;
    EXPECT_EQ(stage, step % stages);
    EXPECT_EQ(p, (step / stages) % 2);
  }
  EXPECT_EQ(stage, 0);
  EXPECT_EQ(p, 0);
}

} // namespace
