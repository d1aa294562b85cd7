#include "layers/xnnpack_gemm.h"

#ifdef HEED_WITH_XNNPACK
#include <cmath>
#include <mutex>
#include <string>

#include <xnnpack.h>

static_assert(heed::layers::kXnnpackReadSlack >= XNN_EXTRA_BYTES, "arena slack below XNNPACK's over-read");
#endif

namespace heed::layers {

#ifdef HEED_WITH_XNNPACK

namespace {
// xnn_initialize is process-wide; it is called once and never undone (operators of any session
// may be alive until exit). It fails on CPUs XNNPACK does not support: heed's kernels then run.
bool initialize_once() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = xnn_initialize(nullptr) == xnn_status_success; });
  return ok;
}
}  // namespace

bool XnnpackGemm::available() { return initialize_once(); }

Status XnnpackGemm::create(const float* weight, const float* bias, size_t out, size_t in,
                           std::unique_ptr<XnnpackGemm>* result) {
  if (!initialize_once()) return unsupported_model("XNNPACK does not support this CPU");
  xnn_operator_t op = nullptr;
  // YIELD_WORKERS: XNNPACK's pthreadpool (ThreadPool::raw, separate from heed's own workers) sleeps
  // after a run instead of spinning on cores other processes need.
  const xnn_status s = xnn_create_fully_connected_nc_f32(in, out, in, out, weight, bias,
                                                         -INFINITY, INFINITY,
                                                         XNN_FLAG_YIELD_WORKERS, &op);
  if (s != xnn_status_success) {
    return Status(s == xnn_status_out_of_memory ? StatusCode::kOutOfMemory : StatusCode::kInternal,
                  "XNNPACK could not create a " + std::to_string(out) + " x " + std::to_string(in) +
                      " fully connected operator (status " + std::to_string(static_cast<int>(s)) + ")");
  }
  std::unique_ptr<XnnpackGemm> g(new XnnpackGemm());
  g->op_ = op;
  *result = std::move(g);
  return Status::success();
}

XnnpackGemm::~XnnpackGemm() {
  if (op_ != nullptr) xnn_delete_operator(static_cast<xnn_operator_t>(op_));
}

bool XnnpackGemm::run(const float* x, size_t m, float* y, pthreadpool* pool) const {
  // Setup of a fully connected operator only stores the batch size and pointers and computes the
  // tiling for the pool's thread count: it allocates nothing (tests/runtime/threading and the counting
  // tests check this).
  xnn_operator_t op = static_cast<xnn_operator_t>(op_);
  if (xnn_setup_fully_connected_nc_f32(op, m, x, y, pool) != xnn_status_success) return false;
  return xnn_run_operator(op, pool) == xnn_status_success;
}

#else  // built without XNNPACK

bool XnnpackGemm::available() { return false; }
Status XnnpackGemm::create(const float*, const float*, size_t, size_t, std::unique_ptr<XnnpackGemm>*) {
  return invalid_argument("this heed was built without XNNPACK (HEED_WITH_XNNPACK=OFF)");
}
XnnpackGemm::~XnnpackGemm() = default;
bool XnnpackGemm::run(const float*, size_t, float*, pthreadpool*) const { return false; }

#endif

}  // namespace heed::layers
