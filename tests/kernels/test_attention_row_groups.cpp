// The attention kernel's row groups (heed/kernels.h, kAttentionRowGroup): query rows run side by
// side on the row path (all scores, then all softmaxes, then all weighted sums) must each give
// exactly what a call with that row alone gives, on every table, whatever the group size the
// scores scratch allows; with row_by_row a call of as many rows as the block path takes must stay
// on the row path (so a sentence's beam rows decode the same in any batch); each row may read its
// keys through its own offset table; and a one-head call leaves each row's probabilities in its
// row of the scratch.
#include <catch2/catch.hpp>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::simd_variants;

namespace {

struct Case {
  size_t rows, len, heads, kv_heads, head_dim;
  AttentionMask mask;
  bool offsets;  // each row reads position j from a random row of a bigger cache
};

// Queries [rows][heads][head_dim]; keys and values [cache_rows][len][kv_dim]; per-row offset tables.
struct Data {
  std::vector<float> q, k, v;
  std::vector<size_t> offsets;
};

Data make_data(const Case& c, uint32_t seed) {
  const size_t kv_dim = c.kv_heads * c.head_dim, cache_rows = 3, stride = c.len * kv_dim;
  Data d{random_f32(c.rows * c.heads * c.head_dim, -2.0f, 2.0f), random_f32(cache_rows * stride, -2.0f, 2.0f),
         random_f32(cache_rows * stride, -3.0f, 3.0f), std::vector<size_t>(c.rows * c.len)};
  std::mt19937 rng(seed);
  for (size_t& o : d.offsets) o = (rng() % cache_rows) * stride + (&o - d.offsets.data()) % c.len * kv_dim;
  return d;
}

AttentionParams params(const Case& c, const Data& d, float* scores, size_t scores_floats, float* out) {
  AttentionParams p;
  p.q_rows = c.rows;
  p.kv_len = c.len;
  p.num_heads = c.heads;
  p.num_kv_heads = c.kv_heads;
  p.head_dim = c.head_dim;
  p.q = d.q.data();
  p.q_row_stride = c.heads * c.head_dim;
  p.q_head_stride = c.head_dim;
  p.k = d.k.data();
  p.v = d.v.data();
  p.k_row_stride = p.v_row_stride = c.kv_heads * c.head_dim;
  p.k_head_stride = p.v_head_stride = c.head_dim;
  if (c.offsets) {
    p.kv_offsets = d.offsets.data();
    p.kv_offsets_row_stride = c.len;
  }
  p.out = out;
  p.out_row_stride = c.heads * c.head_dim;
  p.out_head_stride = c.head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  p.mask = c.mask;
  p.position_offset = c.len > c.rows ? c.len - c.rows : 0;  // the last rows of a causal block
  p.window = 2;
  p.scores = scores;
  p.scores_floats = scores_floats;
  p.row_by_row = true;
  return p;
}

// Row t alone: the same call with q, out and the offset table moved to row t, one row of scores.
void row_alone(const KernelTable& t, const Case& c, const Data& d, size_t row, float* scores, float* out) {
  AttentionParams p = params(c, d, scores, c.len, out);
  p.q_rows = 1;
  p.q = d.q.data() + row * p.q_row_stride;
  p.position_offset += row;
  if (c.offsets) p.kv_offsets = d.offsets.data() + row * c.len;
  t.attention(p);
}

void check(const KernelTable& t, const Case& c, uint32_t seed) {
  const Data d = make_data(c, seed);
  const size_t width = c.heads * c.head_dim;
  std::vector<float> alone(c.rows * width), alone_probs(c.rows * c.len), scores(c.len);
  for (size_t r = 0; r < c.rows; ++r) {
    row_alone(t, c, d, r, scores.data(), alone.data() + r * width);
    std::memcpy(alone_probs.data() + r * c.len, scores.data(), c.len * sizeof(float));
  }
  std::vector<float> want(c.rows * width);
  std::vector<float> big(attention_block_scratch_floats(c.len, c.head_dim) + c.rows * c.len);
  heed::kernels::reference().attention(params(c, d, big.data(), c.len, want.data()));
  // Groups of one row, of two, of the whole scratch's worth, and block-path room (row_by_row).
  for (size_t floats : {c.len, 2 * c.len, c.rows * c.len, big.size()}) {
    std::vector<float> got(c.rows * width, -7.0f), room(floats);
    t.attention(params(c, d, room.data(), floats, got.data()));
    INFO("isa " << isa_name(t.isa) << " rows " << c.rows << " len " << c.len << " heads " << c.heads << "/"
                << c.kv_heads << " dim " << c.head_dim << " mask " << static_cast<int>(c.mask) << " offsets "
                << c.offsets << " scores floats " << floats);
    for (size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i] == alone[i]);
      REQUIRE(close(got[i], want[i], 3.0, 1e-5, 1e-6));
    }
    const size_t group = floats / c.len;
    if (c.heads != 1 || c.rows > group || c.rows > kAttentionRowGroup) continue;
    if (c.mask != AttentionMask::kNone && c.mask != AttentionMask::kCausal) continue;
    const size_t first_position = c.len > c.rows ? c.len - c.rows : 0;
    for (size_t r = 0; r < c.rows; ++r) {  // each row's probabilities in its row of the scratch
      const size_t visible = c.mask == AttentionMask::kNone ? c.len : std::min(c.len, first_position + r + 1);
      for (size_t j = 0; j < visible; ++j) REQUIRE(room[r * c.len + j] == alone_probs[r * c.len + j]);
    }
  }
}

TEST_CASE("attention rows side by side each equal the row alone", "[variants][attention]") {
  std::vector<const KernelTable*> tables = simd_variants();
  tables.push_back(&heed::kernels::reference());
  const Case cases[] = {
      {4, 33, 1, 1, 64, AttentionMask::kNone, false},     // a sentence's 4 beam rows, cross-attention
      {4, 9, 1, 1, 64, AttentionMask::kNone, true},       // the same over per-row K/V cache tables
      {5, 17, 1, 1, 32, AttentionMask::kNone, true},
      {8, 25, 1, 1, 64, AttentionMask::kNone, false},     // a whole row group
      {11, 40, 2, 1, 19, AttentionMask::kNone, false},    // more rows than a group; odd head_dim, GQA
      {6, 12, 3, 3, 80, AttentionMask::kCausal, false},   // rows that see different key ranges
      {4, 3, 1, 1, 64, AttentionMask::kCausal, false},    // more rows than keys
      {7, 30, 2, 2, 16, AttentionMask::kLocalWindow, false},
      {4, 130, 1, 1, 128, AttentionMask::kKeyPadding, false},
  };
  uint32_t seed = 1;
  for (const KernelTable* t : tables) {
    for (const Case& c : cases) check(*t, c, seed++);
  }
}

}  // namespace
