// The fused attention and embedding-gather kernels: the reference against independent
// double-precision arithmetic written from the definitions, then every SIMD variant against the
// reference (odd head sizes, grouped-query heads, strided layouts, every mask mode, with and
// without a relative position bias).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "kernel_test_util.h"

using namespace heed::kernels;
using heed::kernels::test::close;
using heed::kernels::test::random_f32;
using heed::kernels::test::random_i8;
using heed::kernels::test::simd_variants;

namespace {

struct AttnCase {
  size_t q_rows, kv_len, heads, kv_heads, head_dim;
  AttentionMask mask;
  size_t offset = 0, key_length = 0, window = 0;
  bool head_major_cache = false;  // K/V as [heads, time, dim] instead of [time, heads, dim]
  bool relative_bias = false;     // a relative position bias per head (AttentionParams::relative_bias)
};

struct AttnData {
  std::vector<float> q, k, v, out, scores, bias;
  AttentionParams p;
};

// Q is a slice of a fused QKV-like buffer (row stride larger than heads * dim); the output has
// padding between rows too, which must stay untouched.
AttnData make_attention(const AttnCase& c) {
  AttnData d;
  const size_t qpad = 5, opad = 3;
  d.q = random_f32(c.q_rows * (c.heads * c.head_dim + qpad), -2.0f, 2.0f);
  d.k = random_f32(c.kv_len * c.kv_heads * c.head_dim, -2.0f, 2.0f);
  d.v = random_f32(c.kv_len * c.kv_heads * c.head_dim, -3.0f, 3.0f);
  d.out.assign(c.q_rows * (c.heads * c.head_dim + opad), 7.0f);
  d.scores.assign(c.kv_len + 1, 0.0f);
  AttentionParams& p = d.p;
  p.q_rows = c.q_rows; p.kv_len = c.kv_len; p.num_heads = c.heads; p.num_kv_heads = c.kv_heads;
  p.head_dim = c.head_dim;
  p.q = d.q.data(); p.q_row_stride = c.heads * c.head_dim + qpad; p.q_head_stride = c.head_dim;
  if (c.head_major_cache) {
    p.k_row_stride = p.v_row_stride = c.head_dim;
    p.k_head_stride = p.v_head_stride = c.kv_len * c.head_dim;
  } else {
    p.k_row_stride = p.v_row_stride = c.kv_heads * c.head_dim;
    p.k_head_stride = p.v_head_stride = c.head_dim;
  }
  p.k = d.k.data(); p.v = d.v.data();
  p.out = d.out.data(); p.out_row_stride = c.heads * c.head_dim + opad; p.out_head_stride = c.head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  p.mask = c.mask; p.position_offset = c.offset; p.key_length = c.key_length; p.window = c.window;
  p.scores = d.scores.data();
  if (c.relative_bias) {  // each head's 2 kv_len - 1 distances, then a gap of 3 floats
    p.relative_bias_head_stride = 2 * c.kv_len + 2;
    d.bias = random_f32(c.heads * p.relative_bias_head_stride, -3.0f, 3.0f);
    p.relative_bias = d.bias.data();
  }
  return d;
}

// Straight from the definition, in double, with the mask as an explicit predicate per key.
bool visible(const AttnCase& c, size_t t, size_t j) {
  const long pos = static_cast<long>(c.offset + t), jj = static_cast<long>(j);
  switch (c.mask) {
    case AttentionMask::kNone: return true;
    case AttentionMask::kCausal: return jj <= pos;
    case AttentionMask::kKeyPadding: return j < c.key_length;
    case AttentionMask::kLocalWindow: return std::labs(jj - pos) <= static_cast<long>(c.window);
  }
  return false;
}

std::vector<double> attention_double(const AttnCase& c, const AttnData& d) {
  const AttentionParams& p = d.p;
  std::vector<double> out(c.q_rows * c.heads * c.head_dim, 0.0);
  const size_t group = c.heads / c.kv_heads;
  for (size_t t = 0; t < c.q_rows; ++t)
    for (size_t h = 0; h < c.heads; ++h) {
      const size_t g = h / group;
      std::vector<double> w(c.kv_len, 0.0);
      double mx = -INFINITY;
      for (size_t j = 0; j < c.kv_len; ++j) {
        if (!visible(c, t, j)) continue;
        double s = 0;
        for (size_t i = 0; i < c.head_dim; ++i)
          s += double(p.q[t * p.q_row_stride + h * p.q_head_stride + i]) *
               p.k[j * p.k_row_stride + g * p.k_head_stride + i];
        w[j] = s * p.scale;
        if (c.relative_bias) {  // by the key's distance from the query's position
          const long distance = static_cast<long>(j) - static_cast<long>(c.offset + t);
          w[j] += p.relative_bias[h * p.relative_bias_head_stride + c.kv_len - 1 + distance];
        }
        mx = std::max(mx, w[j]);
      }
      double sum = 0;
      for (size_t j = 0; j < c.kv_len; ++j) {
        w[j] = visible(c, t, j) ? std::exp(w[j] - mx) : 0.0;
        sum += w[j];
      }
      for (size_t j = 0; j < c.kv_len; ++j)
        for (size_t i = 0; i < c.head_dim; ++i)
          if (sum > 0)
            out[(t * c.heads + h) * c.head_dim + i] +=
                w[j] / sum * p.v[j * p.v_row_stride + g * p.v_head_stride + i];
    }
  return out;
}

const AttnCase kAttnCases[] = {
    {1, 1, 1, 1, 1, AttentionMask::kNone},
    {1, 37, 8, 8, 64, AttentionMask::kNone},
    {3, 17, 4, 2, 33, AttentionMask::kNone, 0, 0, 0, true},
    {5, 20, 6, 3, 17, AttentionMask::kCausal, 15},
    {7, 7, 2, 2, 8, AttentionMask::kCausal, 0},
    {4, 9, 8, 1, 12, AttentionMask::kCausal, 2, 0, 0, true},  // multi-query
    {3, 30, 4, 4, 31, AttentionMask::kKeyPadding, 0, 19},
    {2, 10, 2, 1, 16, AttentionMask::kKeyPadding, 0, 0},       // no key at all: zeros
    {6, 40, 4, 2, 20, AttentionMask::kLocalWindow, 10, 0, 3},
    {3, 12, 2, 2, 9, AttentionMask::kLocalWindow, 20, 0, 2},   // window past the cache: empty
    {2, 100, 3, 3, 128, AttentionMask::kLocalWindow, 0, 0, 0}, // window 0: the diagonal only
    {9, 9, 4, 4, 16, AttentionMask::kNone, 0, 0, 0, false, true},       // relative position bias
    {5, 20, 6, 3, 17, AttentionMask::kCausal, 15, 0, 0, true, true},
    {3, 30, 2, 2, 31, AttentionMask::kKeyPadding, 0, 19, 0, false, true},
    {6, 40, 4, 2, 20, AttentionMask::kLocalWindow, 10, 0, 3, false, true},
};

}  // namespace

TEST_CASE("reference attention matches a double-precision evaluation of the definition", "[attention]") {
  for (const AttnCase& c : kAttnCases) {
    AttnData d = make_attention(c);
    reference().attention(d.p);
    const auto want = attention_double(c, d);
    for (size_t t = 0; t < c.q_rows; ++t) {
      for (size_t h = 0; h < c.heads; ++h)
        for (size_t i = 0; i < c.head_dim; ++i) {
          INFO("mask " << int(c.mask) << " t " << t << " h " << h << " i " << i);
          REQUIRE(close(d.out[t * d.p.out_row_stride + h * c.head_dim + i],
                        want[(t * c.heads + h) * c.head_dim + i], 3.0, 1e-5, 1e-6));
        }
      for (size_t i = c.heads * c.head_dim; i < d.p.out_row_stride; ++i)
        REQUIRE(d.out[t * d.p.out_row_stride + i] == 7.0f);  // padding untouched
    }
  }
}

TEST_CASE("attention variants match the reference", "[variants][attention]") {
  for (const KernelTable* v : simd_variants()) {
    for (const AttnCase& c : kAttnCases) {
      AttnData r = make_attention(c);
      AttnData s = r;
      s.p.q = s.q.data(); s.p.k = s.k.data(); s.p.v = s.v.data(); s.p.out = s.out.data();
      s.p.scores = s.scores.data();
      reference().attention(r.p);
      v->attention(s.p);
      for (size_t i = 0; i < r.out.size(); ++i) {
        INFO(isa_name(v->isa) << " mask " << int(c.mask) << " i " << i);
        REQUIRE(close(s.out[i], r.out[i], 3.0, 2e-6, 1e-7));
      }
    }
  }
}

namespace {

// Calls that may take the block path (heed/kernels.h): at least kAttentionBlockMinRows query rows,
// kNone or kKeyPadding; query rows not a multiple of a tile or of a block, key counts and head_dim
// not multiples of any vector width, grouped-query heads, a head-major cache, and a causal call
// (which keeps the row loop) given the same scratch.
const AttnCase kBlockCases[] = {
    {4, 1, 1, 1, 1, AttentionMask::kNone},
    {5, 7, 2, 2, 3, AttentionMask::kNone},
    {24, 24, 2, 2, 32, AttentionMask::kNone},
    {25, 33, 3, 3, 17, AttentionMask::kNone},
    {49, 100, 4, 2, 64, AttentionMask::kNone},
    {31, 65, 6, 3, 33, AttentionMask::kNone, 0, 0, 0, true},
    {13, 40, 4, 1, 8, AttentionMask::kKeyPadding, 0, 29},
    {30, 17, 2, 2, 12, AttentionMask::kKeyPadding, 0, 50},   // key_length past the cache: all keys
    {6, 10, 2, 2, 16, AttentionMask::kKeyPadding, 0, 0},     // no key: zeros
    {20, 20, 2, 2, 9, AttentionMask::kCausal, 0},
    {7, 300, 1, 1, 80, AttentionMask::kNone},
    {25, 25, 3, 3, 17, AttentionMask::kNone, 0, 0, 0, false, true},  // relative position bias
    {49, 49, 4, 2, 64, AttentionMask::kNone, 0, 0, 0, true, true},
    {13, 40, 4, 1, 8, AttentionMask::kKeyPadding, 0, 29, 0, false, true},
    {30, 30, 2, 2, 12, AttentionMask::kNone, 0, 0, 0, false, true},
};

// Scratch for the block path followed by canaries the kernel must not touch.
constexpr size_t kCanaries = 64;
void give_block_scratch(AttnData* d) {
  d->p.scores_floats = attention_block_scratch_floats(d->p.kv_len, d->p.head_dim);
  d->scores.assign(d->p.scores_floats + kCanaries, -5.0f);
  d->p.scores = d->scores.data();
}


// Every output of case c in s: the padding between rows untouched, each value given to
// check(got, index in s.out, index in attention_double's packed output); then the canaries after
// the scratch.
template <class Check>
void check_block_outputs(const KernelTable& v, const AttnCase& c, const AttnData& s, Check check) {
  for (size_t t = 0; t < c.q_rows; ++t) {
    for (size_t i = 0; i < s.p.out_row_stride; ++i) {
      INFO(isa_name(v.isa) << " q_rows " << c.q_rows << " kv_len " << c.kv_len << " head_dim " << c.head_dim
                           << " mask " << int(c.mask) << " t " << t << " i " << i);
      const float got = s.out[t * s.p.out_row_stride + i];
      if (i >= c.heads * c.head_dim) {
        REQUIRE(got == 7.0f);  // padding untouched
        continue;
      }
      check(got, t * s.p.out_row_stride + i, t * c.heads * c.head_dim + i);
    }
  }
  for (size_t i = 0; i < kCanaries; ++i) REQUIRE(s.scores[s.p.scores_floats + i] == -5.0f);
}

}  // namespace

TEST_CASE("attention blocks of query rows match the definition and the reference", "[variants][attention]") {
  auto tables = simd_variants();
  tables.insert(tables.begin(), &reference());  // the reference ignores the extra scratch
  for (const KernelTable* v : tables) {
    for (const AttnCase& c : kBlockCases) {
      AttnData r = make_attention(c);
      AttnData s = r;
      s.p.q = s.q.data(); s.p.k = s.k.data(); s.p.v = s.v.data(); s.p.out = s.out.data();
      give_block_scratch(&s);
      reference().attention(r.p);
      v->attention(s.p);
      const auto want = attention_double(c, s);
      check_block_outputs(*v, c, s, [&](float got, size_t at, size_t packed) {
        REQUIRE(close(got, r.out[at], 3.0, 4e-6, 1e-7));
        REQUIRE(close(got, want[packed], 3.0, 4e-6, 1e-7));
      });
    }
  }
}

namespace {

// x rounded to bfloat16, nearest even (finite x): the rounding VCVTNEPS2BF16 does.
float round_bf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

void round_bf16(std::vector<float>* x) {
  for (float& f : *x) f = round_bf16(f);
}

// Whether table v runs case c in bfloat16: the avx512bf16 and bf16 variants' block path, which
// amx inherits (heed/kernels.h: enough rows, no causal or window mask, an even head_dim).
bool bf16_blocks(const KernelTable& v, const AttnCase& c) {
  const bool block_mask = c.mask == AttentionMask::kNone || c.mask == AttentionMask::kKeyPadding;
  const bool bf16_isa = v.isa == Isa::kAvx512Bf16 || v.isa == Isa::kAmx || v.isa == Isa::kNeonBf16;
  return bf16_isa && c.q_rows >= kAttentionBlockMinRows && block_mask && c.head_dim % 2 == 0;
}

}  // namespace

// bf16_products: the avx512bf16 and bf16 variants' block path multiplies q, k, the softmax's exponentials
// and v rounded to bfloat16 (an even head_dim). Against the definition in double on q, k and v so
// rounded, the only other differences are the rounding of each exponential (relative 2^-9, so at
// most 2^-9 max|v| per output, the weights summing to 1) and float32 sums. Every other variant
// ignores the flag and matches the definition on the inputs as given, as in the test above.
TEST_CASE("attention blocks with bfloat16 products match the definition on bfloat16 inputs", "[variants][attention]") {
  auto tables = simd_variants();
  tables.insert(tables.begin(), &reference());
  for (const KernelTable* v : tables) {
    for (const AttnCase& c : kBlockCases) {
      const bool bf16 = bf16_blocks(*v, c);
      AttnData s = make_attention(c);
      give_block_scratch(&s);
      s.p.bf16_products = true;
      AttnData rounded = s;
      round_bf16(&rounded.q); round_bf16(&rounded.k); round_bf16(&rounded.v);
      rounded.p.q = rounded.q.data(); rounded.p.k = rounded.k.data(); rounded.p.v = rounded.v.data();
      v->attention(s.p);
      const auto want = attention_double(c, bf16 ? rounded : s);
      const double tolerance = bf16 ? 3.0 * std::ldexp(1.0, -9) * 1.5 + 1e-5 : 3.0 * 4e-6;
      check_block_outputs(*v, c, s, [&](float got, size_t, size_t packed) {
        REQUIRE(std::fabs(got - want[packed]) <= tolerance);
      });
    }
  }
}

TEST_CASE("embedding gather dequantizes rows and zeroes bad ids", "[embed]") {
  const size_t rows = 11, dim = 19, ld = 23, ldo = 21;
  auto table = random_i8(rows * ld);
  auto scales = random_f32(rows, 0.001f, 0.1f);
  std::vector<float> f(rows * ld);
  for (size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(table[i]) * 0.37f;
  std::vector<uint16_t> half(f.size());
  reference().f32_to_f16(f.data(), half.data(), f.size());
  const std::vector<int32_t> ids = {3, 0, 10, -1, 11, 3, 1 << 30};
  for (const KernelTable* t : [] {
         auto v = simd_variants();
         v.insert(v.begin(), &reference());
         return v;
       }()) {
    for (float mult : {1.0f, 22.627417f}) {
      std::vector<float> out(ids.size() * ldo, 5.0f), out16(ids.size() * ldo, 5.0f);
      REQUIRE(t->embed_i8(table.data(), rows, ld, scales.data(), ids.data(), ids.size(), dim, mult,
                          out.data(), ldo) == 3);
      REQUIRE(t->embed_f16(half.data(), rows, ld, ids.data(), ids.size(), dim, mult, out16.data(), ldo) == 3);
      for (size_t k = 0; k < ids.size(); ++k) {
        const bool bad = ids[k] < 0 || ids[k] >= static_cast<int32_t>(rows);
        for (size_t i = 0; i < dim; ++i) {
          const float want = bad ? 0.0f : static_cast<float>(table[ids[k] * ld + i]) * scales[ids[k]] * mult;
          const float want16 = bad ? 0.0f : f[ids[k] * ld + i] * mult;
          INFO(isa_name(t->isa) << " id " << ids[k] << " i " << i);
          REQUIRE(out[k * ldo + i] == want);  // one rounding per multiply, as specified
          REQUIRE(close(out16[k * ldo + i], want16, std::fabs(want16), 1e-3));  // f16 rounding of the table
        }
        for (size_t i = dim; i < ldo; ++i) REQUIRE(out[k * ldo + i] == 5.0f);
      }
    }
  }
}

namespace {

// One query row and head (a decoder step: layers::attend), K and V in separate buffers with row
// strides of head_dim plus an odd padding (as the K/V cache and the cross-attention memory are
// slices of wider rows), q at an odd offset, canaries after the output row.
AttnData make_single_query(const AttnCase& c, size_t k_pad, size_t v_pad) {
  AttnData d;
  d.q = random_f32(c.head_dim + 3, -2.0f, 2.0f);
  d.k = random_f32(c.kv_len * (c.head_dim + k_pad), -2.0f, 2.0f);
  d.v = random_f32(c.kv_len * (c.head_dim + v_pad), -3.0f, 3.0f);
  d.out.assign(c.head_dim + kCanaries, 7.0f);
  d.scores.assign(c.kv_len, 0.0f);
  AttentionParams& p = d.p;
  p.q_rows = 1; p.kv_len = c.kv_len; p.num_heads = p.num_kv_heads = 1; p.head_dim = c.head_dim;
  p.q = d.q.data() + 3;
  p.k = d.k.data(); p.k_row_stride = c.head_dim + k_pad;
  p.v = d.v.data(); p.v_row_stride = c.head_dim + v_pad;
  p.out = d.out.data();
  p.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  p.mask = c.mask; p.position_offset = c.offset; p.window = c.window;
  p.scores = d.scores.data();
  return d;
}

void check_single_query(const KernelTable& v, const AttnCase& c, size_t k_pad, size_t v_pad) {
  AttnData r = make_single_query(c, k_pad, v_pad);
  AttnData s = r;
  s.p.q = s.q.data() + 3; s.p.k = s.k.data(); s.p.v = s.v.data(); s.p.out = s.out.data();
  s.p.scores = s.scores.data();
  reference().attention(r.p);
  v.attention(s.p);
  const auto want = attention_double(c, s);
  for (size_t i = 0; i < s.out.size(); ++i) {
    INFO(isa_name(v.isa) << " head_dim " << c.head_dim << " kv_len " << c.kv_len << " mask " << int(c.mask)
                         << " strides " << s.p.k_row_stride << " " << s.p.v_row_stride << " i " << i);
    if (i >= c.head_dim) {
      REQUIRE(s.out[i] == 7.0f);  // never written past head_dim
      continue;
    }
    REQUIRE(close(s.out[i], r.out[i], 3.0, 2e-6, 1e-7));
    REQUIRE(close(s.out[i], want[i], 3.0, 4e-6, 1e-7));
  }
}

}  // namespace

// The row path's register tiles: groups of keys with a partial last group, output column blocks
// and their remainders (every head_dim up to 130, each with three key counts in turn; the usual
// and edge head_dims with every key count from 1 to 300), odd row strides, a causal call seeing
// part of the cache, a local window starting past key 0, and 4 KiB rows.
TEST_CASE("single-query attention matches the definition and the reference", "[variants][attention]") {
  auto tables = simd_variants();
  tables.insert(tables.begin(), &reference());
  const size_t kv_lens[] = {1, 2, 3, 7, 8, 9, 17, 31, 64, 300};
  const size_t n = std::size(kv_lens);
  auto all_lengths = [](size_t d) {
    for (size_t e : {1, 3, 8, 31, 32, 33, 63, 64, 65, 80, 127, 128, 130})
      if (d == e) return true;
    return false;
  };
  for (const KernelTable* v : tables) {
    for (size_t d = 1; d <= 130; ++d)
      for (size_t i = 0; i < (all_lengths(d) ? n : 3); ++i)
        check_single_query(*v, {1, kv_lens[(i + d) % n], 1, 1, d, AttentionMask::kNone}, 1 + 2 * (d % 3), 3);
    check_single_query(*v, {1, 300, 1, 1, 64, AttentionMask::kCausal, 200}, 64 * 7, 64 * 15);  // 201 keys
    check_single_query(*v, {1, 300, 1, 1, 80, AttentionMask::kLocalWindow, 150, 0, 21}, 5, 11);  // keys 129..171
    check_single_query(*v, {1, 40, 1, 1, 64, AttentionMask::kNone}, 1024 - 64, 1024 - 64);
  }
}
