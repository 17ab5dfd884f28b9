// The divergence experiment's host arithmetic (model.cpp): the paths' chains the outputs are
// checked against, the work per thread, the serialisation model, and the SASS reading that
// establishes predication.
#include "model.hpp"

#include "declaration.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <stdexcept>

using namespace apod::divergence;

TEST(DivergenceModel, EveryPathHasItsOwnConstantsSoNoTwoPathsAgree) {
  std::set<float> results;
  for (int p = 0; p < max_paths; ++p)
    results.insert(long_branch_chains(input_value(3), p, 512)[0]);
  EXPECT_EQ(results.size(), size_t(max_paths));
}

TEST(DivergenceModel, AChainOneStepShortGivesAnotherAnswer) {
  for (int p = 0; p < max_paths; ++p)
    for (int c = 0; c < chains; ++c) {
      EXPECT_NE(long_branch_chains(input_value(15), p, 16384)[c],
                long_branch_chains(input_value(15), p, 16383)[c]);
      EXPECT_NE(long_branch_chains(input_value(15), p, 512)[c],
                long_branch_chains(input_value(15), p, 511)[c]);
    }
  EXPECT_NE(short_branch_chains(input_value(15), ~0u, 16384)[3],
            short_branch_chains(input_value(15), ~0u, 16380)[3]);
}

TEST(DivergenceModel, ChainsStayFiniteAndMoveTowardsTwo) {
  const auto v = long_branch_chains(input_value(15), 31, 16384);
  for (float x : v) {
    EXPECT_TRUE(std::isfinite(x));
    EXPECT_GT(x, 1.0f);
    EXPECT_LT(x, 2.0f);
  }
}

TEST(DivergenceModel, TheShortBranchAppliesItsFmaOnlyOnSetBits) {
  EXPECT_EQ(short_branch_chains(1.5f, 0u, 64), (std::vector<float>{1.5f, 1.625f, 1.75f, 1.875f}));
  const auto all = short_branch_chains(1.5f, ~0u, 64);
  const auto half = short_branch_chains(1.5f, 0x0000FFFFu, 128); // 64 steps applied
  EXPECT_EQ(all, half);
  // Bits 0..3 set: one FMA on each chain; bit 0 only: chain 0 alone moves.
  const auto first = short_branch_chains(1.5f, 0x1u, 32);
  EXPECT_NE(first[0], 1.5f);
  EXPECT_EQ(first[1], 1.625f);
}

TEST(DivergenceModel, MasksSetAboutHalfTheirBitsAndDiffer) {
  const auto masks = short_branch_masks();
  ASSERT_EQ(masks.size(), size_t(mask_count));
  int bits = 0;
  for (uint32_t m : masks)
    bits += std::popcount(m);
  EXPECT_NEAR(double(bits) / (32.0 * mask_count), 0.5, 0.06);
  EXPECT_EQ(std::set<uint32_t>(masks.begin(), masks.end()).size(), masks.size());
}

TEST(DivergenceModel, TheGuidesWarpAlignedConditionGivesALaneItsWarpsPath) {
  // threadIdx.x / warpSize: every lane of warp 5 selects 5; lane mod k: lanes select themselves.
  for (uint32_t lane = 0; lane < 32; ++lane) {
    EXPECT_EQ(selector_of(5 * 32 + lane, false), 5u);
    EXPECT_EQ(selector_of(5 * 32 + lane, true), lane);
  }
}

TEST(DivergenceModel, DivergentThreadsRunAPathsShareOfTheSteps) {
  EXPECT_EQ(steps_per_thread(16384, 32, true), 512);
  EXPECT_EQ(steps_per_thread(16384, 32, false), 16384);
  EXPECT_EQ(steps_per_thread(16384, 1, true), 16384);
  EXPECT_THROW(steps_per_thread(16384, 0, true), std::invalid_argument);
}

TEST(DivergenceModel, ADivergentWarpRunsItsPathsInTurn) {
  EXPECT_DOUBLE_EQ(divergent_rate_model(1000.0, 1), 1000.0);
  EXPECT_DOUBLE_EQ(divergent_rate_model(1000.0, 8), 125.0);
  EXPECT_DOUBLE_EQ(divergent_rate_model(1000.0, 32), 31.25);
  EXPECT_THROW(divergent_rate_model(1000.0, 0), std::invalid_argument);
}

TEST(DivergenceModel, RatesCountEveryChainsFmas) {
  // 1000 threads x 4 chains x 250 steps in 1 ms: 1e6 FMAs / 1e-3 s = 1 GFMA/s.
  EXPECT_DOUBLE_EQ(fmas_per_thread(false, 250), 1000.0);
  EXPECT_DOUBLE_EQ(fmas_per_thread(true, 250), 250.0); // the short branch: one FMA a step
  EXPECT_DOUBLE_EQ(thread_fma_rate_g(1000, 1000, 1.0), 1.0);
  // H100 SXM: 132 SMs x 128 FP32 lanes x 1.98 GHz = 33454 GFMA/s.
  EXPECT_NEAR(peak_fma_rate_g(132, 128, 1980000), 33454.08, 0.01);
}

namespace {
// The shape of cuobjdump -sass output (CUDA 12/13), trimmed.
const char* sample_sass = R"SASS(
Fatbin elf code:
================
arch = sm_90
code version = [1,7]
host = linux
compile_size = 64bit

	code for sm_90
		Function : apod_divergence_short_branch
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                   /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;                                       /* 0x0000000000007919 */
        /*0020*/              @!P0 BRA `(.L_x_0) ;                                          /* 0x0000000000208947 */
        /*0030*/                   FFMA R4, R4, R5, R6 ;                                    /* 0x0000000504047223 */
        /*0040*/               @P1 FFMA R7, R7, R5, R6 ;                                    /* 0x0000000507071223 */
        /*0050*/                   FSEL R8, R4, R9, P2 ;                                    /* 0x0000000904087208 */
        /*0060*/                   BSSY B0, `(.L_x_1) ;                                     /* 0x0000000000007945 */
        /*0070*/                   BRX R2 -0x80 ;                                            /* 0x0000000002007949 */
        /*0080*/               @P0 BRA `(.L_x_2) ;                                          /* 0x0000000000000947 */
        /*0090*/                   EXIT ;                                                   /* 0x000000000000794d */
.L_x_1:
        /*00a0*/                   BRA `(.L_x_1);                                           /* 0xfffffffc00fc7947 */
		..........

		Function : another_kernel
        /*0000*/                   BRA `(.L_x_9);                                           /* 0xfffffffc00fc7947 */

	code for sm_80
		Function : apod_divergence_short_branch
        /*0000*/                   EXIT ;                                                   /* 0x000000000000794d */
)SASS";
} // namespace

TEST(DivergenceModel, SassCountsBranchesPredicatesAndFmasOfTheFirstFunctionOnly) {
  const SassCounts n = count_sass(listing_for_arch(sample_sass, "sm_90"));
  EXPECT_EQ(n.bra, 3); // the two predicated ones and the trailing self-loop; not another_kernel's
  EXPECT_EQ(n.brx, 1);
  EXPECT_EQ(n.predicated, 1); // @P1 FFMA; predicated branches count as branches
  EXPECT_EQ(n.convergence, 1);
  EXPECT_EQ(n.ffma, 2);
  EXPECT_EQ(n.instructions, 11);
}

TEST(DivergenceModel, ListingForArchTakesOnlyThatArchitecture) {
  const std::string sm80 = listing_for_arch(sample_sass, "sm_80");
  EXPECT_EQ(count_sass(sm80).instructions, 1);
  EXPECT_EQ(listing_for_arch(sample_sass, "sm_75"), "");
  EXPECT_EQ(listing_for_arch(sample_sass, "sm_9"), "");
}

TEST(DivergenceModel, ListingForArchSkipsAnotherFatbinsEmptySection) {
  // cuobjdump -fun NAME prints each translation unit's fatbin; those without NAME are empty.
  const std::string two =
      std::string("Fatbin elf code:\n\tcode for sm_90\n\nFatbin elf code:\n") + sample_sass;
  EXPECT_EQ(count_sass(listing_for_arch(two, "sm_90")).instructions, 11);
  EXPECT_NE(listing_for_arch("\tcode for sm_90\n", "sm_90"), "");
}

TEST(DivergenceDeclaration, ThePlanHasSixUniformFiveDivergentAndTwoShortPoints) {
  const apod::Declaration* d = apod::find_declaration(experiment);
  ASSERT_NE(d, nullptr);
  const auto points = d->plan(apod::PlanInput{});
  ASSERT_EQ(points.size(), 13u);
  int short_points = 0, divergent_points = 0;
  for (const auto& p : points) {
    short_points += p.params[body.key] == short_body;
    divergent_points += p.params[condition.key] == divergent && p.params[body.key] == long_body;
  }
  EXPECT_EQ(short_points, 2);
  EXPECT_EQ(divergent_points, 5); // lane mod 1 is the uniform branch: not measured twice
}
