// What this machine can do at best, measured, so kernel benchmarks can report "% of peak" and
// "% of bandwidth" instead of bare numbers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heed/kernels.h"

namespace heed::bench {

// Int8 multiply-accumulate peak of one core for the instruction path `isa`'s gemm_i8 uses, in
// GOPS (one MAC = 2 ops): VPDPBUSD zmm for avx512vnni, VPMADDUBSW + VPMADDWD + VPADDD ymm for
// avx2, TDPBSSD for amx. 0 when unknown (not x86, or the CPU lacks it). Measured once, best of several runs.
double int8_peak_gops(kernels::Isa isa);

// Streaming read bandwidth of one core over a buffer far larger than the last-level cache, GB/s.
double read_bandwidth_gbps();

// The raw loops (x86 only), each compiled with its own flags: `iters` rounds over independent
// accumulators; they return a value derived from the accumulators so nothing is optimized away.
// *macs_per_iter receives the int8 MACs one round performs.
int64_t peak_loop_vpdpbusd_zmm(int64_t iters, int64_t* macs_per_iter);
int64_t peak_loop_avx2_maddubs(int64_t iters, int64_t* macs_per_iter);
int64_t peak_loop_amx_tdpbssd(int64_t iters, int64_t* macs_per_iter);

// Seconds of CPU time this thread has used. The machine is shared (load average above the core
// count while other builds run), so every rate here is per second of CPU time the thread actually
// got, not per wall-clock second, which would count time spent preempted.
double thread_cpu_seconds();

// Sums `bytes` bytes (a multiple of 512) with wide loads, as fast as memory allows.
uint64_t stream_read(const uint8_t* p, size_t bytes);

}  // namespace heed::bench
