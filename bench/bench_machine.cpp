// Machine calibration (int8 peak, memory bandwidth) and the benchmarks that show it:
//   heed_bench_kernels --benchmark_filter='peak|memory'
#include "bench_machine.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include <time.h>

namespace heed::bench {

namespace {

// The buffer the bandwidth runs read: 1 GiB, four times this machine's 260 MiB L3 (and far more
// than any Raspberry Pi cache), touched once so its pages exist before timing.
constexpr size_t kStreamBytes = size_t{1} << 30;

const uint8_t* stream_buffer() {
  static const std::unique_ptr<uint8_t[]> buf = [] {
    std::unique_ptr<uint8_t[]> b(new uint8_t[kStreamBytes]);
    for (size_t i = 0; i < kStreamBytes; i += 4096) std::memset(b.get() + i, static_cast<int>(i >> 12), 4096);
    return b;
  }();
  return buf.get();
}

using PeakLoop = int64_t (*)(int64_t, int64_t*);

PeakLoop peak_loop_for(kernels::Isa isa) {
#if defined(HEED_BENCH_X86)
  if (isa == kernels::Isa::kAmx && kernels::for_isa(isa) != nullptr) return peak_loop_amx_tdpbssd;
  if (isa == kernels::Isa::kAvx512Vnni && kernels::for_isa(isa) != nullptr) return peak_loop_vpdpbusd_zmm;
  if (isa == kernels::Isa::kAvx2 && kernels::for_isa(isa) != nullptr) return peak_loop_avx2_maddubs;
#else
  (void)isa;
#endif
  return nullptr;
}

// GOPS of one timed run of `iters` rounds.
double time_peak(PeakLoop loop, int64_t iters) {
  int64_t macs = 0;
  const double t0 = thread_cpu_seconds();
  benchmark::DoNotOptimize(loop(iters, &macs));
  const double s = thread_cpu_seconds() - t0;
  return 2.0 * static_cast<double>(macs) * static_cast<double>(iters) / s * 1e-9;
}

double time_stream() {
  const uint8_t* p = stream_buffer();
  const double t0 = thread_cpu_seconds();
  benchmark::DoNotOptimize(stream_read(p, kStreamBytes));
  const double s = thread_cpu_seconds() - t0;
  return static_cast<double>(kStreamBytes) / s * 1e-9;
}

void BM_int8_peak(benchmark::State& state, kernels::Isa isa) {
  const PeakLoop loop = peak_loop_for(isa);
  int64_t macs = 0;
  const int64_t iters = 1 << 16;
  for (auto _ : state) benchmark::DoNotOptimize(loop(iters, &macs));
  state.counters["GOPS"] = benchmark::Counter(2.0 * macs * iters * state.iterations(),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

void BM_stream_read(benchmark::State& state) {
  const uint8_t* p = stream_buffer();
  for (auto _ : state) benchmark::DoNotOptimize(stream_read(p, kStreamBytes));
  state.counters["GBps"] = benchmark::Counter(static_cast<double>(kStreamBytes) * state.iterations(),
                                              benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

int register_machine() {
  if (peak_loop_for(kernels::Isa::kAmx))
    benchmark::RegisterBenchmark("peak/amx_tdpbssd", BM_int8_peak, kernels::Isa::kAmx);
  if (peak_loop_for(kernels::Isa::kAvx512Vnni))
    benchmark::RegisterBenchmark("peak/vpdpbusd_zmm", BM_int8_peak, kernels::Isa::kAvx512Vnni);
  if (peak_loop_for(kernels::Isa::kAvx2))
    benchmark::RegisterBenchmark("peak/avx2_maddubs_maddwd", BM_int8_peak, kernels::Isa::kAvx2);
  benchmark::RegisterBenchmark("memory/stream_read_1GiB", BM_stream_read);
  return 0;
}

const int kMachineRegistered = register_machine();

}  // namespace

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

uint64_t stream_read(const uint8_t* p, size_t bytes) {
  // Eight interleaved streams (eighths of the buffer), like a GEMV reading several weight rows at
  // once: that keeps enough cache-line misses in flight to see the memory system's bandwidth, which
  // one sequential stream does not reach on a server core. Each step adds 64 bytes per stream into
  // 64-bit sums; the adds are far cheaper than the memory they wait for.
  constexpr size_t kStreams = 8;
  const size_t part = bytes / kStreams;
  uint64_t s[kStreams][8] = {};
  for (size_t i = 0; i < part; i += 64) {
    for (size_t j = 0; j < kStreams; ++j) {
      uint64_t w[8];
      std::memcpy(w, p + j * part + i, 64);
      for (int l = 0; l < 8; ++l) s[j][l] += w[l];
    }
  }
  uint64_t t = 0;
  for (auto& row : s)
    for (uint64_t v : row) t += v;
  return t;
}

double int8_peak_gops(kernels::Isa isa) {
  static double cache[static_cast<int>(kernels::Isa::kCount)] = {};
  double& c = cache[static_cast<int>(isa)];
  if (c == 0.0) {
    const PeakLoop loop = peak_loop_for(isa);
    if (loop == nullptr) return 0.0;
    // Best of several short runs: the machine is shared, and the best run is the closest to
    // what the core can do when it has the core to itself.
    for (int r = 0; r < 20; ++r) c = std::max(c, time_peak(loop, 1 << 17));
  }
  return c;
}

double read_bandwidth_gbps() {
  static const double bw = [] {
    double best = 0.0;
    for (int r = 0; r < 5; ++r) best = std::max(best, time_stream());
    return best;
  }();
  return bw;
}

}  // namespace heed::bench
