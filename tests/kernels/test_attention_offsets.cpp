// Attention over a K/V cache read by hypothesis (AttentionParams::kv_offsets): position j of the
// query's row lives at an arbitrary row of the cache, as after beam reorders. Every table (the
// reference and each SIMD variant) must give, through the offsets, exactly what it gives on the
// same keys and values gathered into contiguous rows, and the variants must match the reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::simd_variants;

namespace {


// A cache of `rows` rows x `len` positions x kv_dim; the hypothesis reads position j from row
// origin[j]. Returns (through offsets) and (gathered) outputs of one query per head.
void check_case(const KernelTable& t, size_t len, size_t heads, size_t kv_heads, size_t head_dim, uint32_t seed) {
  const size_t rows = 5, kv_dim = kv_heads * head_dim, stride = len * kv_dim;
  const std::vector<float> k = random_f32(rows * stride, -2.0f, 2.0f), v = random_f32(rows * stride, -3.0f, 3.0f);
  const std::vector<float> q = random_f32(heads * head_dim, -2.0f, 2.0f);
  std::mt19937 rng(seed);
  std::vector<size_t> offsets(len);
  std::vector<float> gk(len * kv_dim), gv(len * kv_dim);
  for (size_t j = 0; j < len; ++j) {
    offsets[j] = (rng() % rows) * stride + j * kv_dim;
    for (size_t i = 0; i < kv_dim; ++i) {
      gk[j * kv_dim + i] = k[offsets[j] + i];
      gv[j * kv_dim + i] = v[offsets[j] + i];
    }
  }
  std::vector<float> scores(len + 1), by_offsets(heads * head_dim), gathered(heads * head_dim), want(heads * head_dim);
  AttentionParams p;
  p.q_rows = 1;
  p.kv_len = len;
  p.num_heads = heads;
  p.num_kv_heads = kv_heads;
  p.head_dim = head_dim;
  p.q = q.data();
  p.q_head_stride = head_dim;
  p.k_head_stride = p.v_head_stride = head_dim;
  p.out_head_stride = head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  p.scores = scores.data();
  AttentionParams a = p;  // through the offsets, in the big cache
  a.k = k.data();
  a.v = v.data();
  a.kv_offsets = offsets.data();
  a.out = by_offsets.data();
  t.attention(a);
  AttentionParams g = p;  // the same keys and values, gathered
  g.k = gk.data();
  g.v = gv.data();
  g.k_row_stride = g.v_row_stride = kv_dim;
  g.out = gathered.data();
  t.attention(g);
  a.out = want.data();
  heed::kernels::reference().attention(a);
  for (size_t i = 0; i < by_offsets.size(); ++i) {
    INFO("isa " << isa_name(t.isa) << " len " << len << " heads " << heads << "/" << kv_heads << " dim " << head_dim
                << " i " << i);
    REQUIRE(by_offsets[i] == gathered[i]);
    REQUIRE(close(by_offsets[i], want[i], 3.0, 1e-5, 1e-6));
  }
}

TEST_CASE("attention through per-position offsets equals attention over the gathered rows", "[variants][attention]") {
  std::vector<const KernelTable*> tables = simd_variants();
  tables.push_back(&heed::kernels::reference());
  for (const KernelTable* t : tables) {
    uint32_t seed = 1;
    for (size_t len : {1, 2, 7, 33, 130}) {
      check_case(*t, len, 4, 4, 64, seed++);
      check_case(*t, len, 6, 2, 19, seed++);
      check_case(*t, len, 2, 1, 128, seed++);
    }
  }
}

}  // namespace
