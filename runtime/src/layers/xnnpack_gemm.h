// XNNPACK's f32 fully connected operator as a GEMM backend for one Linear layer (issue "Fast
// kernels on every target"): y[m, out] = clamp(x[m, in] W^T + b). XNNPACK packs its own copy of W
// when the operator is created (at session creation); run() only hands the row count and the
// pointers to the operator and runs it on the session's pthreadpool, without allocating.
//
// Rows must be contiguous (row strides in and out are fixed at creation). XNNPACK reads up to
// kXnnpackReadSlack bytes past the end of x (never writes past y): callers leave that much
// readable memory after the input (sessions add it at the end of their arena).
//
// Built only with HEED_WITH_XNNPACK; otherwise create() fails and available() is false.
#pragma once

#include <cstddef>
#include <memory>

#include "heed/status.h"

struct pthreadpool;

namespace heed::layers {

// Bytes XNNPACK may read past its input (XNN_EXTRA_BYTES is 16), rounded up to the arena alignment.
inline constexpr size_t kXnnpackReadSlack = 64;

class XnnpackGemm {
 public:
  // True when heed was built with XNNPACK and it initialized on this CPU.
  static bool available();
  // weight [out, in] row-major and bias [out] (may be null) must outlive the call only (XNNPACK
  // copies them). No clamp: Linear applies its activation afterwards with heed's kernel, so one
  // operator serves every activation a layer is called with.
  static Status create(const float* weight, const float* bias, size_t out, size_t in,
                       std::unique_ptr<XnnpackGemm>* result);
  ~XnnpackGemm();
  XnnpackGemm(const XnnpackGemm&) = delete;
  XnnpackGemm& operator=(const XnnpackGemm&) = delete;

  // y = x W^T + b for m contiguous rows; `pool` may be null (caller's thread only). Returns false
  // if XNNPACK refused (then y is untouched and the caller falls back to heed's kernel).
  bool run(const float* x, size_t m, float* y, pthreadpool* pool) const;

 private:
  XnnpackGemm() = default;
  void* op_ = nullptr;  // xnn_operator_t
};

}  // namespace heed::layers
