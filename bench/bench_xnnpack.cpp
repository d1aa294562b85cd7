// XNNPACK (Debian's 2022 snapshot) against heed's own GEMM kernels, side by side, one thread, at
// the shapes of an OPUS-MT-sized Transformer (d_model 512, FFN 2048, vocabulary 32000) for
// M = 1, 4, 16, 64 rows:
//   f32:  xnn fully_connected_nc_f32            vs heed gemm_f32 (the dispatched variant)
//   f16:  xnn fully_connected_nc_f16 (f16 in and out; only where XNNPACK supports the CPU)
//                                               vs heed gemm_f16 (f16 weights, f32 activations)
//   int8: xnn fully_connected_nc_qs8 (one weight scale) and convolution2d_nhwc_qc8 as a 1x1
//         convolution (per-channel weight scales), both with a static activation scale and int8
//         output                                vs heed gemm_i8 (per-row scales, f32 output) and
//         quantize_rows_i8 + gemm_i8, which is what heed's Linear runs (dynamic activation scale)
// Operators are created (weights packed) outside the timing, as a session would at creation.
// Reported: GFLOPS = 2 M N K / this thread's CPU time (the machine is shared with other jobs).
//   heed_bench_xnnpack --benchmark_filter=f32
#include <benchmark/benchmark.h>
#include <xnnpack.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_machine.h"
#include "heed/kernels.h"

namespace {

using heed::kernels::KernelTable;

void fill_f32(std::vector<float>& v, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (auto& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(static_cast<int>((x >> 16) % 2001) - 1000) * 1e-3f;
  }
}
void fill_i8(std::vector<int8_t>& v, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<int8_t>(static_cast<int>((x >> 24) % 255) - 127);
  }
}

// Runs `body` in the benchmark loop and reports GFLOPS from this thread's CPU time.
template <typename F>
void timed(benchmark::State& state, size_t m, size_t n, size_t k, const F& body) {
  const double t0 = heed::bench::thread_cpu_seconds();
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  const double s = heed::bench::thread_cpu_seconds() - t0;
  state.counters["GFLOPS"] = 2.0 * m * n * k * static_cast<double>(state.iterations()) / s * 1e-9;
}

void heed_f32(benchmark::State& state, size_t m, size_t n, size_t k) {
  const KernelTable& t = heed::kernels::best();
  std::vector<float> a(m * k), b(n * k), bias(n), c(m * n);
  fill_f32(a, 1), fill_f32(b, 2), fill_f32(bias, 3);
  heed::kernels::GemmF32Params p;
  p.m = m, p.n = n, p.k = k, p.a = a.data(), p.lda = k, p.b = b.data(), p.ldb = k, p.bias = bias.data();
  p.c = c.data(), p.ldc = n;
  timed(state, m, n, k, [&] { t.gemm_f32(p); });
}

void xnn_f32(benchmark::State& state, size_t m, size_t n, size_t k) {
  std::vector<float> a(m * k), b(n * k), bias(n), c(m * n);
  fill_f32(a, 1), fill_f32(b, 2), fill_f32(bias, 3);
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f32(k, n, k, n, b.data(), bias.data(), -INFINITY, INFINITY, 0, &op) !=
          xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, m, a.data(), c.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK f32 fully connected unavailable");
    return;
  }
  timed(state, m, n, k, [&] { xnn_run_operator(op, nullptr); });
  xnn_delete_operator(op);
}

void heed_f16(benchmark::State& state, size_t m, size_t n, size_t k) {
  const KernelTable& t = heed::kernels::best();
  std::vector<float> a(m * k), bf(n * k), bias(n), c(m * n);
  fill_f32(a, 1), fill_f32(bf, 2), fill_f32(bias, 3);
  std::vector<uint16_t> b(n * k);
  t.f32_to_f16(bf.data(), b.data(), n * k);
  heed::kernels::GemmF16Params p;
  p.m = m, p.n = n, p.k = k, p.a = a.data(), p.lda = k, p.b = b.data(), p.ldb = k, p.bias = bias.data();
  p.c = c.data(), p.ldc = n;
  timed(state, m, n, k, [&] { t.gemm_f16(p); });
}

void xnn_f16(benchmark::State& state, size_t m, size_t n, size_t k) {
  const KernelTable& t = heed::kernels::best();
  std::vector<float> af(m * k), bf(n * k), biasf(n);
  fill_f32(af, 1), fill_f32(bf, 2), fill_f32(biasf, 3);
  std::vector<uint16_t> a(m * k), b(n * k), bias(n), c(m * n);
  t.f32_to_f16(af.data(), a.data(), m * k);
  t.f32_to_f16(bf.data(), b.data(), n * k);
  t.f32_to_f16(biasf.data(), bias.data(), n);
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f16(k, n, k, n, b.data(), bias.data(), -INFINITY, INFINITY, 0, &op) !=
          xnn_status_success ||
      xnn_setup_fully_connected_nc_f16(op, m, a.data(), c.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK f16 fully connected unsupported on this CPU");
    return;
  }
  timed(state, m, n, k, [&] { xnn_run_operator(op, nullptr); });
  xnn_delete_operator(op);
}

struct I8Data {
  std::vector<int8_t> a, b, c8;
  std::vector<float> a_scales, b_scales, bias, c;
  std::vector<int32_t> bias32;
  I8Data(size_t m, size_t n, size_t k)
      : a(m * k), b(n * k), c8(m * n), a_scales(m, 0.01f), b_scales(n, 0.01f), bias(n, 0.1f), c(m * n),
        bias32(n, 1000) {
    fill_i8(a, 7);
    fill_i8(b, 11);
  }
};

void heed_i8(benchmark::State& state, size_t m, size_t n, size_t k, bool quantize) {
  const KernelTable& t = heed::kernels::best();
  I8Data d(m, n, k);
  std::vector<float> x(m * k);
  fill_f32(x, 5);
  heed::kernels::GemmI8Params p;
  p.m = m, p.n = n, p.k = k, p.a = d.a.data(), p.lda = k, p.a_scales = d.a_scales.data();
  p.b = d.b.data(), p.ldb = k, p.b_scales = d.b_scales.data(), p.bias = d.bias.data();
  p.c = d.c.data(), p.ldc = n;
  timed(state, m, n, k, [&] {
    if (quantize) t.quantize_rows_i8(x.data(), m, k, k, d.a.data(), k, d.a_scales.data());
    t.gemm_i8(p);
  });
}

void xnn_qs8(benchmark::State& state, size_t m, size_t n, size_t k) {
  I8Data d(m, n, k);
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_qs8(k, n, k, n, 0, 0.01f, 0.01f, d.b.data(), d.bias32.data(), 0, 0.5f, -127,
                                        127, 0, &op) != xnn_status_success ||
      xnn_setup_fully_connected_nc_qs8(op, m, d.a.data(), d.c8.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK qs8 fully connected unavailable");
    return;
  }
  timed(state, m, n, k, [&] { xnn_run_operator(op, nullptr); });
  xnn_delete_operator(op);
}

void xnn_qc8(benchmark::State& state, size_t m, size_t n, size_t k) {
  I8Data d(m, n, k);
  xnn_operator_t op = nullptr;
  // A 1x1 convolution over M "pixels": XNNPACK's only per-output-channel int8 weight path.
  if (xnn_create_convolution2d_nhwc_qc8(0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, n, k, n, 0, 0.01f, d.b_scales.data(),
                                        d.b.data(), d.bias32.data(), 0, 0.5f, -127, 127, 0, &op) !=
          xnn_status_success ||
      xnn_setup_convolution2d_nhwc_qc8(op, 1, m, 1, d.a.data(), d.c8.data(), nullptr) != xnn_status_success) {
    state.SkipWithError("XNNPACK qc8 convolution unavailable");
    return;
  }
  timed(state, m, n, k, [&] { xnn_run_operator(op, nullptr); });
  xnn_delete_operator(op);
}

const struct Shape {
  size_t n, k;
  const char* what;
} kShapes[] = {{512, 512, "attn"}, {2048, 512, "ffn1"}, {512, 2048, "ffn2"}, {32000, 512, "vocab"}};
const size_t kRows[] = {1, 4, 16, 64};

int register_all() {
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnn_initialize failed: XNNPACK does not support this CPU\n");
    return 0;
  }
  for (const Shape& s : kShapes) {
    for (size_t m : kRows) {
      const std::string shape = std::string(s.what) + "/m" + std::to_string(m) + "_n" + std::to_string(s.n) + "_k" +
                                std::to_string(s.k);
      benchmark::RegisterBenchmark(("f32/heed/" + shape).c_str(), heed_f32, m, s.n, s.k);
      benchmark::RegisterBenchmark(("f32/xnnpack/" + shape).c_str(), xnn_f32, m, s.n, s.k);
      benchmark::RegisterBenchmark(("f16/heed/" + shape).c_str(), heed_f16, m, s.n, s.k);
      benchmark::RegisterBenchmark(("f16/xnnpack/" + shape).c_str(), xnn_f16, m, s.n, s.k);
      benchmark::RegisterBenchmark(("i8/heed_gemm/" + shape).c_str(), heed_i8, m, s.n, s.k, false);
      benchmark::RegisterBenchmark(("i8/heed_quantize_gemm/" + shape).c_str(), heed_i8, m, s.n, s.k, true);
      benchmark::RegisterBenchmark(("i8/xnnpack_qs8_fc/" + shape).c_str(), xnn_qs8, m, s.n, s.k);
      benchmark::RegisterBenchmark(("i8/xnnpack_qc8_conv1x1/" + shape).c_str(), xnn_qc8, m, s.n, s.k);
    }
  }
  return 0;
}

const int kRegistered = register_all();

}  // namespace

BENCHMARK_MAIN();
