// Kernel throughput per variant at transformer-sized shapes (d_model 512, FFN 2048). Every
// variant this CPU can run is registered, so one run compares them side by side:
//   heed_bench_kernels --benchmark_filter=gemm_i8
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "heed/kernels.h"

namespace {

using heed::kernels::GemmI8Params;
using heed::kernels::Isa;
using heed::kernels::KernelTable;

struct GemmData {
  std::vector<int8_t> a, b;
  std::vector<float> a_scales, b_scales, bias, c;
  GemmData(size_t m, size_t n, size_t k)
      : a(m * k), b(n * k), a_scales(m, 0.01f), b_scales(n, 0.01f), bias(n, 0.1f), c(m * n) {
    std::mt19937 gen(7);
    std::uniform_int_distribution<int> d(-127, 127);
    for (auto& x : a) x = static_cast<int8_t>(d(gen));
    for (auto& x : b) x = static_cast<int8_t>(d(gen));
  }
};

void bench_gemm_i8(benchmark::State& state, const KernelTable* t, size_t m, size_t n, size_t k) {
  GemmData d(m, n, k);
  GemmI8Params p;
  p.m = m; p.n = n; p.k = k;
  p.a = d.a.data(); p.lda = k; p.a_scales = d.a_scales.data();
  p.b = d.b.data(); p.ldb = k; p.b_scales = d.b_scales.data();
  p.bias = d.bias.data(); p.c = d.c.data(); p.ldc = n;
  for (auto _ : state) {
    t->gemm_i8(p);
    benchmark::DoNotOptimize(d.c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GOPS"] = benchmark::Counter(2.0 * m * n * k * state.iterations(),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void bench_softmax(benchmark::State& state, const KernelTable* t, size_t n) {
  std::vector<float> x(n), work(n);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> d(-10, 10);
  for (auto& v : x) v = d(gen);
  for (auto _ : state) {
    work = x;
    t->softmax(work.data(), n);
    benchmark::DoNotOptimize(work.data());
  }
}

const struct Shape {
  size_t m, n, k;
} kShapes[] = {{1, 512, 512}, {1, 2048, 512}, {1, 512, 2048}, {32, 512, 512}, {32, 2048, 512}};

int register_all() {
  for (int i = 0; i < static_cast<int>(Isa::kCount); ++i) {
    const KernelTable* t = heed::kernels::for_isa(static_cast<Isa>(i));
    if (t == nullptr) continue;
    const std::string isa = heed::kernels::isa_name(t->isa);
    for (const Shape& s : kShapes) {
      const std::string name = "gemm_i8/" + isa + "/m" + std::to_string(s.m) + "_n" +
                               std::to_string(s.n) + "_k" + std::to_string(s.k);
      benchmark::RegisterBenchmark(name.c_str(), bench_gemm_i8, t, s.m, s.n, s.k);
    }
    benchmark::RegisterBenchmark(("softmax/" + isa + "/32000").c_str(), bench_softmax, t, size_t{32000});
  }
  return 0;
}

const int kRegistered = register_all();

}  // namespace

BENCHMARK_MAIN();
