// Kernel throughput per variant at the shapes of an OPUS-MT-sized Transformer (d_model 512, FFN
// 2048, vocabulary 32000), for batch/time rows M = 1, 4, 16, 64, 128, reported against the
// measured machine (bench_machine.cpp):
//   GOPS       2 * M * N * K / time (time = this thread's CPU time: the machine is shared)
//   pct_peak   GOPS as % of the measured int8 peak of the instruction path the variant uses
//   GBps       weight bytes (N * K) / time: what a GEMV (M = 1) is bound by
//   pct_bw     GBps as % of the measured streaming-read bandwidth (only meaningful when the
//              weights do not fit in the caches: the gemv_large case)
//
//   heed_bench_kernels --benchmark_filter=gemm_i8
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench_machine.h"
#include "heed/kernels.h"

namespace {

using heed::kernels::GemmI8Params;
using heed::kernels::Isa;
using heed::kernels::KernelTable;

// Cheap deterministic bytes in [-127, 127] (a 1 GiB weight matrix must fill in well under a second).
void fill_i8(std::vector<int8_t>& v, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<int8_t>(static_cast<int>((x >> 24) % 255) - 127);
  }
}

struct GemmData {
  std::vector<int8_t> a, b;
  std::vector<float> a_scales, b_scales, bias, c;
  GemmData(size_t m, size_t n, size_t k)
      : a(m * k), b(n * k), a_scales(m, 0.01f), b_scales(n, 0.01f), bias(n, 0.1f), c(m * n) {
    fill_i8(a, 7);
    fill_i8(b, 11);
  }
};

void bench_gemm_i8(benchmark::State& state, const KernelTable* t, size_t m, size_t n, size_t k) {
  GemmData d(m, n, k);
  GemmI8Params p;
  p.m = m; p.n = n; p.k = k;
  p.a = d.a.data(); p.lda = k; p.a_scales = d.a_scales.data();
  p.b = d.b.data(); p.ldb = k; p.b_scales = d.b_scales.data();
  p.bias = d.bias.data(); p.c = d.c.data(); p.ldc = n;
  const double t0 = heed::bench::thread_cpu_seconds();
  for (auto _ : state) {
    t->gemm_i8(p);
    benchmark::DoNotOptimize(d.c.data());
    benchmark::ClobberMemory();
  }
  const double s = heed::bench::thread_cpu_seconds() - t0;
  const double iters = static_cast<double>(state.iterations());
  const double gops = 2.0 * m * n * k * iters / s * 1e-9;
  const double gbps = static_cast<double>(n) * k * iters / s * 1e-9;
  state.counters["GOPS"] = gops;
  state.counters["GBps"] = gbps;
  const double peak = heed::bench::int8_peak_gops(t->isa);
  if (peak > 0) state.counters["pct_peak"] = 100.0 * gops / peak;
  if (m == 1) state.counters["pct_bw"] = 100.0 * gbps / heed::bench::read_bandwidth_gbps();
}

// The same product over weights packed by pack_i8_16x4 (packing is done once, outside the timing,
// as a converter or loader would). a_block > 0: activations and weights in blocks of K, with the
// weights' lane tables (pack_block_lanes) as the runtime's Linear passes them. copies > 1: each
// call reads the next of `copies` copies of the weights, so that they come from memory as a
// decoder step's do (its layers' weights together exceed the last-level cache), not from L2.
void bench_gemm_i8_packed(benchmark::State& state, const KernelTable* t, size_t m, size_t n, size_t k,
                          size_t a_block, size_t copies) {
  GemmData d(m, n, k);
  const size_t bytes = (heed::kernels::packed_i8_16x4_bytes(n, k) + 63) / 64 * 64;
  std::vector<int8_t> packed(bytes * copies + 64);
  int8_t* aligned = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
  std::vector<int32_t> sums(n);
  heed::kernels::pack_i8_16x4(d.b.data(), n, k, k, aligned, sums.data());
  heed::kernels::GemmI8PackedParams p;
  p.m = m; p.n = n; p.k = k;
  p.a = d.a.data(); p.lda = k; p.a_scales = d.a_scales.data();
  p.packed = aligned; p.row_sums = sums.data(); p.b_scales = d.b_scales.data();
  p.bias = d.bias.data(); p.c = d.c.data(); p.ldc = n;
  const size_t blocks = a_block == 0 ? 1 : (k + a_block - 1) / a_block;
  std::vector<float> a_scales(m * blocks, 0.01f), b_scales(n * blocks, 0.01f);
  std::vector<heed::kernels::BlockLanes> lanes(a_block == 0 ? 0 : heed::kernels::block_lanes_count(n, k, a_block));
  if (a_block != 0) {
    heed::kernels::pack_block_lanes(aligned, n, k, a_block, b_scales.data(), true, lanes.data());
    p.a_block = a_block; p.a_scales = a_scales.data(); p.b_scales = b_scales.data(); p.b_scales_per_block = true;
    p.block_lanes = lanes.data();
  }
  for (size_t c = 1; c < copies; ++c) std::copy(aligned, aligned + bytes, aligned + c * bytes);
  size_t copy = 0;
  const double t0 = heed::bench::thread_cpu_seconds();
  for (auto _ : state) {
    p.packed = aligned + copy * bytes;
    copy = copy + 1 == copies ? 0 : copy + 1;
    t->gemm_i8_packed(p);
    benchmark::DoNotOptimize(d.c.data());
    benchmark::ClobberMemory();
  }
  const double s = heed::bench::thread_cpu_seconds() - t0;
  const double iters = static_cast<double>(state.iterations());
  const double gops = 2.0 * m * n * k * iters / s * 1e-9;
  const double gbps = static_cast<double>(n) * k * iters / s * 1e-9;
  state.counters["GOPS"] = gops;
  state.counters["GBps"] = gbps;
  const double peak = heed::bench::int8_peak_gops(t->isa);
  if (peak > 0) state.counters["pct_peak"] = 100.0 * gops / peak;
  if (m == 1) state.counters["pct_bw"] = 100.0 * gbps / heed::bench::read_bandwidth_gbps();
}

// One product cut into `ranges` calls over N at multiples of `step` rows, as Linear shares a
// layer's outputs between threads (layers/output_ranges.h), timed together on this thread: with a
// step narrower than the kernel's tiles (KernelTable::gemm_i8_packed_n_step) the calls that end in
// a partial tile compute more than their outputs.
void bench_gemm_i8_packed_ranges(benchmark::State& state, const KernelTable* t, size_t m, size_t n, size_t k,
                                 size_t ranges, size_t step) {
  GemmData d(m, n, k);
  std::vector<int8_t> packed(heed::kernels::packed_i8_16x4_bytes(n, k) + 64);
  int8_t* aligned = packed.data() + (64 - reinterpret_cast<uintptr_t>(packed.data()) % 64) % 64;
  std::vector<int32_t> sums(n);
  heed::kernels::pack_i8_16x4(d.b.data(), n, k, k, aligned, sums.data());
  const size_t tiles = (n + step - 1) / step;
  const double t0 = heed::bench::thread_cpu_seconds();
  for (auto _ : state) {
    for (size_t r = 0; r < ranges; ++r) {
      const size_t n0 = std::min(n, tiles * r / ranges * step), n1 = std::min(n, tiles * (r + 1) / ranges * step);
      if (n0 == n1) continue;
      heed::kernels::GemmI8PackedParams p;
      p.m = m; p.n = n1 - n0; p.k = k;
      p.a = d.a.data(); p.lda = k; p.a_scales = d.a_scales.data();
      p.packed = aligned + n0 * k; p.row_sums = sums.data() + n0; p.b_scales = d.b_scales.data() + n0;
      p.bias = d.bias.data() + n0; p.c = d.c.data() + n0; p.ldc = n;
      t->gemm_i8_packed(p);
    }
    benchmark::DoNotOptimize(d.c.data());
    benchmark::ClobberMemory();
  }
  const double s = heed::bench::thread_cpu_seconds() - t0;
  const double gops = 2.0 * m * n * k * static_cast<double>(state.iterations()) / s * 1e-9;
  state.counters["GOPS"] = gops;
  const double peak = heed::bench::int8_peak_gops(t->isa);
  if (peak > 0) state.counters["pct_peak"] = 100.0 * gops / peak;
}

void bench_softmax(benchmark::State& state, const KernelTable* t, size_t n) {
  std::vector<float> x(n), work(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.2f - 10.0f;
  for (auto _ : state) {
    work = x;
    t->softmax(work.data(), n);
    benchmark::DoNotOptimize(work.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

// What a beam search's step takes from each row of logits: log_sum_exp over `rows` rows of n
// (64 x 32000 is batch 16 x beam 4's 8 MB of logits, past the L2 cache as in a step).
void bench_log_sum_exp(benchmark::State& state, const KernelTable* t, size_t rows, size_t n) {
  std::vector<float> x(rows * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.2f - 10.0f;
  for (auto _ : state) {
    float total = 0.0f;
    for (size_t r = 0; r < rows; ++r) total += t->log_sum_exp(x.data() + r * n, n);
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows * n));
}

// A decoder step's layer norm: 64 rows (batch 16 x beam 4) of the model width, L1/L2-resident.
void bench_layer_norm(benchmark::State& state, const KernelTable* t, size_t rows, size_t n) {
  std::vector<float> x(rows * n), y(rows * n), gamma(n, 1.1f), beta(n, 0.1f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.02f - 1.0f;
  for (auto _ : state) {
    t->layer_norm(x.data(), rows, n, gamma.data(), beta.data(), 1e-5f, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows * n));
}

// Quantizing a decoder step's activations (rows of A for an int8 GEMM): 64 rows (batch 16 x
// beam 4) of the model width or the FFN width, L2-resident.
void bench_quantize(benchmark::State& state, const KernelTable* t, size_t rows, size_t cols) {
  std::vector<float> x(rows * cols), scales(rows);
  std::vector<int8_t> q(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 1201) * 0.01f - 6.0f;
  for (auto _ : state) {
    t->quantize_rows_i8(x.data(), rows, cols, cols, q.data(), cols, scales.data());
    benchmark::DoNotOptimize(q.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows * cols));
}

// GELU over one FFN row block of an encoder (64 rows of 1536, L2-resident), values spread over
// [-6, 6) as FFN inputs are.
void bench_gelu(benchmark::State& state, const KernelTable* t, size_t n) {
  std::vector<float> x(n), work(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37) % 1201) * 0.01f - 6.0f;
  for (auto _ : state) {
    work = x;
    t->activate(work.data(), n, heed::kernels::Activation::kGelu);
    benchmark::DoNotOptimize(work.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}

// Encoder self-attention over one 256-token sentence, all-MiniLM's 12 heads of 32 (Q, K, V
// interleaved per token as the encoder's QKV product writes them); counters: multiply-adds of
// Q.K^T and P.V per second. bf16: the call accepts bfloat16 products, as an int8 model's encoder
// makes it (only the avx512bf16 variant takes them).
void bench_attention(benchmark::State& state, const KernelTable* t, size_t tokens, bool bf16) {
  const size_t heads = 12, head_dim = 32, width = 3 * heads * head_dim;
  std::vector<float> qkv(tokens * width), out(tokens * heads * head_dim);
  for (size_t i = 0; i < qkv.size(); ++i) qkv[i] = static_cast<float>((i * 37) % 101) * 0.02f - 1.0f;
  std::vector<float> scratch(heed::kernels::attention_block_scratch_floats(tokens, head_dim));
  heed::kernels::AttentionParams p;
  p.q_rows = p.kv_len = tokens;
  p.num_heads = p.num_kv_heads = heads;
  p.head_dim = head_dim;
  p.q = qkv.data();
  p.k = qkv.data() + heads * head_dim;
  p.v = qkv.data() + 2 * heads * head_dim;
  p.q_row_stride = p.k_row_stride = p.v_row_stride = width;
  p.q_head_stride = p.k_head_stride = p.v_head_stride = head_dim;
  p.out = out.data();
  p.out_row_stride = heads * head_dim;
  p.out_head_stride = head_dim;
  p.scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  p.scores = scratch.data();
  p.scores_floats = scratch.size();
  p.bf16_products = bf16;
  for (auto _ : state) {
    t->attention(p);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GMACs"] = benchmark::Counter(static_cast<double>(2 * tokens * tokens * head_dim * heads) * 1e-9 *
                                                   static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

// One decoder query row and head over a cross-attention memory of `keys` keys (head_dim 64, rows
// of 8 heads' keys and values plus the decoder's cache line of padding, as the e2e model's): the
// call a batch-16 beam-4 step makes 64 x 8 x 6 times for cross-attention alone. L1-resident after
// the first pass: this is the per-call cost.
// One head of `rows` query rows over the same keys on the row path (a sentence's beam rows in a
// decoder step's cross-attention), side by side in one call; rows = 1 is one query row.
void bench_attention_row(benchmark::State& state, const KernelTable* t, size_t keys, size_t rows) {
  const size_t head_dim = 64, stride = 2 * 8 * head_dim + 16;
  std::vector<float> q(rows * head_dim), kv(keys * stride), out(rows * head_dim), scores(rows * keys);
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = static_cast<float>((i * 37) % 101) * 0.02f - 1.0f;
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 7) * 0.1f;
  heed::kernels::AttentionParams p;
  p.q_rows = rows;
  p.kv_len = keys;
  p.num_heads = p.num_kv_heads = 1;
  p.head_dim = head_dim;
  p.q = q.data();
  p.q_row_stride = p.out_row_stride = head_dim;
  p.k = kv.data();
  p.v = kv.data() + 8 * head_dim;
  p.k_row_stride = p.v_row_stride = stride;
  p.out = out.data();
  p.scale = 0.125f;
  p.scores = scores.data();
  p.scores_floats = scores.size();
  p.row_by_row = true;
  for (auto _ : state) {
    t->attention(p);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["GMACs"] = benchmark::Counter(static_cast<double>(2 * rows * keys * head_dim) * 1e-9 *
                                                   static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

// (N, K) of the model's matrices: attention projections, FFN in and out, the vocabulary projection.
const struct Shape {
  size_t n, k;
  const char* what;
} kShapes[] = {{512, 512, "attn"}, {2048, 512, "ffn1"}, {512, 2048, "ffn2"}, {32000, 512, "vocab"}};
const size_t kRows[] = {1, 4, 16, 64, 128};
// all-MiniLM's encoder matrices besides the FFN input: Q/K/V as one, attention output, FFN output.
const Shape kEncoderShapes[] = {{1152, 384, "qkv"}, {384, 384, "out"}, {384, 1536, "ffn2"}};

int register_all() {
  std::vector<void (*)(const heed::kernels::GemmI8Params&)> gemm_i8_seen;  // tables in enum order: parents first
  for (int i = 0; i < static_cast<int>(Isa::kCount); ++i) {
    const KernelTable* t = heed::kernels::for_isa(static_cast<Isa>(i));
    if (t == nullptr) continue;
    const std::string isa = heed::kernels::isa_name(t->isa);
    // Row-major gemm_i8 where this variant has its own (the amx table inherits avx512vnni's, whose
    // percentage of the TDPBSSD peak would mean nothing).
    const bool own_gemm_i8 =
        std::find(gemm_i8_seen.begin(), gemm_i8_seen.end(), t->gemm_i8) == gemm_i8_seen.end();
    gemm_i8_seen.push_back(t->gemm_i8);
    for (const Shape& s : kShapes) {
      for (size_t m : kRows) {
        if (!own_gemm_i8 || (t->isa == Isa::kScalar && m > 4)) continue;  // the reference is a baseline
        const std::string name = "gemm_i8/" + isa + "/" + s.what + "/m" + std::to_string(m) + "_n" +
                                 std::to_string(s.n) + "_k" + std::to_string(s.k);
        benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8, t, m, s.n, s.k);
      }
    }
    // The packed-weight kernel, where this variant has its own (not the reference's).
    if (t->isa != Isa::kScalar && t->gemm_i8_packed != heed::kernels::reference().gemm_i8_packed) {
      for (const Shape& s : kShapes)
        for (size_t m : kRows) {
          const std::string name = "gemm_i8_packed/" + isa + "/" + s.what + "/m" + std::to_string(m) +
                                   "_n" + std::to_string(s.n) + "_k" + std::to_string(s.k);
          benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8_packed, t, m, s.n, s.k, size_t{0}, size_t{1});
        }
      // A product shared by 2 threads (8 ranges) cut at 16 rows and at the kernel's own step.
      for (const Shape& s : kShapes) {
        if (s.n * s.k > (size_t{4} << 20)) continue;
        for (const size_t step : {size_t{16}, t->gemm_i8_packed_n_step}) {
          const std::string name = "gemm_i8_packed/" + isa + "/ranges8_step" + std::to_string(step) + "/" + s.what +
                                   "/m64_n" + std::to_string(s.n) + "_k" + std::to_string(s.k);
          benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8_packed_ranges, t, size_t{64}, s.n, s.k, size_t{8},
                                       step);
        }
      }
      // A decoder step's products at batch 16 x beam 4: the weights cold (64 MiB of copies).
      for (const Shape& s : kShapes) {
        if (s.n * s.k > (size_t{4} << 20)) continue;  // the vocabulary projection is cold already
        const std::string name = "gemm_i8_packed/" + isa + "/cold/" + s.what + "/m64_n" + std::to_string(s.n) +
                                 "_k" + std::to_string(s.k);
        benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8_packed, t, size_t{64}, s.n, s.k, size_t{0},
                                     (size_t{64} << 20) / (s.n * s.k));
      }
      // An encoder's FFN input (all-MiniLM: 1536 x 384) over 256 rows, per row and in blocks of K;
      // its other matrices (Q/K/V together, attention output, FFN output) in blocks of 32.
      for (size_t block : {0, 16, 32, 64}) {
        const std::string name = "gemm_i8_packed/" + isa + "/encoder_blocks/b" + std::to_string(block) +
                                 "_m256_n1536_k384";
        benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8_packed, t, size_t{256}, size_t{1536},
                                     size_t{384}, size_t{block}, size_t{1});
      }
      for (const Shape& s : kEncoderShapes) {
        const std::string name = "gemm_i8_packed/" + isa + "/encoder_blocks/b32_m256_n" + std::to_string(s.n) +
                                 "_k" + std::to_string(s.k);
        benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8_packed, t, size_t{256}, s.n, s.k, size_t{32}, size_t{1});
      }
    }
    // Batch-1 GEMV over 1 GiB of weights: far beyond the last-level cache, so bandwidth-bound.
    if (t->isa != Isa::kScalar) {
      if (own_gemm_i8) {
        benchmark::RegisterBenchmark(("gemm_i8/" + isa + "/gemv_large/m1_n524288_k2048").c_str(),
                                     bench_gemm_i8, t, size_t{1}, size_t{524288}, size_t{2048})
            ->MinTime(2.0);
      }
      if (t->gemm_i8_packed != heed::kernels::reference().gemm_i8_packed) {
        benchmark::RegisterBenchmark(("gemm_i8_packed/" + isa + "/gemv_large/m1_n524288_k2048").c_str(),
                                     bench_gemm_i8_packed, t, size_t{1}, size_t{524288}, size_t{2048}, size_t{0}, size_t{1})
            ->MinTime(2.0);
      }
    }
    benchmark::RegisterBenchmark(("softmax/" + isa + "/32000").c_str(), bench_softmax, t, size_t{32000});
    benchmark::RegisterBenchmark(("layer_norm/" + isa + "/64x512").c_str(), bench_layer_norm, t, size_t{64},
                                 size_t{512});
    benchmark::RegisterBenchmark(("log_sum_exp/" + isa + "/64x32000").c_str(), bench_log_sum_exp, t, size_t{64},
                                 size_t{32000});
    for (const size_t cols : {size_t{512}, size_t{2048}})
      benchmark::RegisterBenchmark(("quantize_rows_i8/" + isa + "/m64_k" + std::to_string(cols)).c_str(),
                                   bench_quantize, t, size_t{64}, cols);
    benchmark::RegisterBenchmark(("gelu/" + isa + "/98304").c_str(), bench_gelu, t, size_t{98304});
    if (t->isa != Isa::kScalar)
      benchmark::RegisterBenchmark(("attention/" + isa + "/encoder_256x12x32").c_str(), bench_attention, t, size_t{256},
                                   false);
    for (const size_t keys : {size_t{25}, size_t{100}})
      for (const size_t rows : {size_t{1}, size_t{4}}) {
        const std::string shape = (rows == 1 ? "/row_" : "/rows" + std::to_string(rows) + "_") + std::to_string(keys);
        benchmark::RegisterBenchmark(("attention/" + isa + shape + "x64").c_str(), bench_attention_row, t, keys, rows);
      }
    if (t->isa == Isa::kAvx512Bf16)
      benchmark::RegisterBenchmark(("attention/" + isa + "/encoder_256x12x32_bf16_products").c_str(), bench_attention,
                                   t, size_t{256}, true);
  }
  return 0;
}

const int kRegistered = register_all();

}  // namespace

BENCHMARK_MAIN();
