#include "layers/linear.h"

#include <cstring>

#include "heed_format/quantization.h"

#include "layers/output_ranges.h"
#include "threading/thread_pool.h"
#include "loader/model_index.h"

namespace heed::layers {

namespace {
thread_local InputRecorder* t_recorder = nullptr;
// forward_consuming(): the outlier channels' values of one pass's rows, on the stack.
constexpr size_t kTakenFloats = 4096;
static_assert(kTakenFloats >= 16 * format::kMaxOutlierChannels, "a pass of 16 rows must fit");
}  // namespace

InputRecorder* set_input_recorder(InputRecorder* recorder) {
  InputRecorder* previous = t_recorder;
  t_recorder = recorder;
  return previous;
}

Status Linear::load(const Model& model, const std::string& weight_name, const std::string& bias_name,
                    size_t out, size_t in) {
  const TensorView* w = nullptr;
  HEED_RETURN_IF_ERROR(require_shape(model, weight_name,
                                     {static_cast<uint32_t>(out), static_cast<uint32_t>(in)}, &w));
  model_ = &model;
  name_ = weight_name;
  out_ = out;
  in_ = in;
  dtype_ = w->dtype;
  weight_ = w->data;
  scales_ = nullptr;
  expanded_scales_.clear();
  group_size_ = 0;
  row_sums_ = nullptr;
  a_block_ = 0;
  outlier_channels_ = nullptr;
  num_outliers_ = 0;
  outlier_weights_ = nullptr;
  xnnpack_.reset();
  if (w->layout == fb::Layout::Packed16x4) {
    // The loader has checked dtype, size, per-row/per-tensor scales, the row sums tensor and that
    // an activation block is a multiple of 16.
    if (w->row_sums == nullptr) return invalid_file("tensor '" + weight_name + "' is packed without row sums");
    row_sums_ = w->row_sums;
    a_block_ = w->activation_block;
  }
  outlier_channels_ = w->outlier_channels;
  num_outliers_ = w->num_outlier_channels;
  outlier_weights_ = w->outlier_weights;
  block_lanes_.clear();
  gathered_lanes_ = nullptr;
  switch (w->dtype) {
    case fb::DType::F32:
    case fb::DType::F16:
      break;
    case fb::DType::I8:
      HEED_RETURN_IF_ERROR(use_int8_scales(*w));
      break;
    default:
      return invalid_file("tensor '" + weight_name + "' has dtype " + dtype_name(w->dtype) +
                          ", expected f32, f16 or i8");
  }
  if (a_block_ != 0 && dtype_ == fb::DType::I8) pack_block_lanes();
  if (!bias_name.empty()) HEED_RETURN_IF_ERROR(bias_.load(model, bias_name, out, /*optional=*/true));
  return Status::success();
}

// An int8 weight's scales: checked against its quantization and shape; a per-tensor scale is
// repeated per row, as the kernels read one scale per row or group.
Status Linear::use_int8_scales(const TensorView& w) {
  if (w.scales == nullptr) return invalid_file("tensor '" + name_ + "' is int8 without scales");
  // Per-group scales need whole 4-byte units per group (the int8 kernels read groups of 4).
  const bool grouped = w.quantization == fb::Quantization::PerGroup;
  if (w.num_scales == 0 || w.num_scales != format::scale_count(w.quantization, out_, in_, w.group_size) ||
      (grouped && w.group_size % 4 != 0)) {
    return invalid_file("tensor '" + name_ + "' has an unusable int8 quantization (" +
                        std::to_string(w.num_scales) + " scales, group size " +
                        std::to_string(w.group_size) + ")");
  }
  if (w.quantization == fb::Quantization::PerTensor) {
    expanded_scales_.assign(out_, w.scales[0]);
    scales_ = expanded_scales_.data();
  } else {
    scales_ = w.scales;
    group_size_ = grouped ? w.group_size : 0;
  }
  return Status::success();
}

Status Linear::use_xnnpack(size_t min_rows) {
  if (!xnnpack_eligible()) return Status::success();
  std::unique_ptr<XnnpackGemm> gemm;
  HEED_RETURN_IF_ERROR(XnnpackGemm::create(static_cast<const float*>(weight_), bias_.data(), out_, in_, &gemm));
  xnnpack_ = std::move(gemm);
  xnnpack_min_rows_ = min_rows == 0 ? 1 : min_rows;
  // XNNPACK now holds its own packed copy; the mapped weights were just read to make it. Releasing
  // their pages keeps the float32 model resident once instead of twice (477 -> ~250 MiB for the
  // 232 MiB e2e model). Calls XNNPACK cannot take read them back from the file.
  if (model_ != nullptr) model_->release_pages(weight_, out_ * in_ * sizeof(float));
  return Status::success();
}

bool Linear::forward_xnnpack(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, float* y,
                             size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                             const threading::ThreadPool* pool) const {
  if (xnnpack_ == nullptr || m < xnnpack_min_rows_ || ldx != in_) return false;
  // Without accumulate XNNPACK writes y itself (rows must be contiguous); with it, the staging
  // buffer takes x W^T + b and heed adds it to y row by row.
  float* out = y;
  if (accumulate) {
    if (scratch.staging == nullptr || m * out_ > scratch.staging_floats) return false;
    out = scratch.staging;
  } else if (ldy != out_) {
    return false;
  }
  if (!xnnpack_->run(x, m, out, pool == nullptr ? nullptr : pool->raw())) return false;
  if (act != kernels::Activation::kNone) k.activate(out, m * out_, act);
  if (accumulate) {
    for (size_t r = 0; r < m; ++r) k.add(y + r * ldy, out + r * out_, out_);
  }
  return true;
}

void Linear::pack_block_lanes() {
  block_lanes_.resize(kernels::block_lanes_count(out_, in_, a_block_));
  kernels::pack_block_lanes(static_cast<const int8_t*>(weight_), out_, in_, a_block_, scales_, group_size_ != 0,
                            block_lanes_.data());
}

void Linear::quantize_activations(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx,
                                  const QuantScratch& scratch) const {
  if (num_outliers_ == 0) {
    quantize_rows(k, x, m, ldx, scratch.q, scratch.scales);
    return;
  }
  // Outlier channels leave the int8 scales: each row is quantized from a copy with them set to 0
  // (their int8 weights are 0 too; forward_rows adds them in float32).
  alignas(64) float row[format::kMaxOutlierInputs];
  const size_t scales = activation_scales_per_row();
  for (size_t r = 0; r < m; ++r) {
    std::memcpy(row, x + r * ldx, in_ * sizeof(float));
    for (size_t j = 0; j < num_outliers_; ++j) row[outlier_channels_[j]] = 0.0f;
    quantize_rows(k, row, 1, in_, scratch.q + r * in_, scratch.scales + r * scales);
  }
}

void Linear::quantize_rows(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, int8_t* q,
                           float* scales) const {
  if (a_block_ == 0) {
    k.quantize_rows_i8(x, m, in_, ldx, q, in_, scales);
    return;
  }
  // Each block of a row is a "row" of a_block_ values for the kernel: row r's scales are
  // scales[r * blocks + q], as gemm_i8_packed reads them. A last, shorter block goes on its own.
  const size_t whole = in_ / a_block_, blocks = (in_ + a_block_ - 1) / a_block_, tail = in_ - whole * a_block_;
  for (size_t r = 0; r < m; ++r) {
    const float* row = x + r * ldx;
    int8_t* qr = q + r * in_;
    float* sr = scales + r * blocks;
    if (whole > 0) k.quantize_rows_i8(row, whole, a_block_, a_block_, qr, a_block_, sr);
    if (tail > 0) k.quantize_rows_i8(row + whole * a_block_, 1, tail, tail, qr + whole * a_block_, tail, sr + whole);
  }
}

void Linear::take_outliers(float* x, size_t m, size_t ldx, float* taken) const {
  for (size_t r = 0; r < m; ++r) {
    float* row = x + r * ldx;
    for (size_t j = 0; j < num_outliers_; ++j) {
      taken[r * num_outliers_ + j] = row[outlier_channels_[j]];
      row[outlier_channels_[j]] = 0.0f;
    }
  }
}

void Linear::add_outliers(const kernels::KernelTable& k, const float* x, const float* taken, size_t m, size_t ldx,
                          float* y, size_t ldy, size_t n0, size_t n1) const {
  constexpr size_t kRows = 32;  // rows gathered on the stack per call
  float xo[kRows * format::kMaxOutlierChannels];
  for (size_t r0 = 0; r0 < m; r0 += kRows) {
    const size_t rows = m - r0 < kRows ? m - r0 : kRows;
    const float* alphas = xo;
    if (taken != nullptr) {
      alphas = taken + r0 * num_outliers_;
    } else {
      for (size_t r = 0; r < rows; ++r)
        for (size_t j = 0; j < num_outliers_; ++j) xo[r * num_outliers_ + j] = x[(r0 + r) * ldx + outlier_channels_[j]];
    }
    k.axpy_rows_f32(rows, alphas, num_outliers_, num_outliers_, outlier_weights_ + n0, out_, y + r0 * ldy + n0, ldy,
                    n1 - n0);
  }
}

void Linear::run(const kernels::KernelTable& k, const float* x, float* writable, size_t m, size_t ldx, float* y,
                 size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                 const threading::ThreadPool* pool) const {
  if (m == 0) return;
  if (t_recorder != nullptr) t_recorder->record(name_, x, m, in_, ldx);
  if (forward_xnnpack(k, x, m, ldx, y, ldy, act, accumulate, scratch, pool)) return;
  if (dtype_ != fb::DType::I8) {
    for_each_output_range(pool, m, out_, in_, kOutputTileRows, [&](size_t n0, size_t n1) {
      forward_rows(k, x, nullptr, ldx, x, m, ldx, y, ldy, act, accumulate, scratch, n0, n1);
    });
    return;
  }
  run_int8(k, x, num_outliers_ == 0 ? nullptr : writable, m, ldx, y, ldy, act, accumulate, scratch, pool);
}

// Quantized once for every range, its rows split between the threads. With outlier channels, in
// passes of rows whose outputs fit in L2: adding the channels' float products then reads rows of x
// and y that are still there, instead of every output again from memory after the whole GEMM (one
// 256-token sentence of all-MiniLM already has 1.2 MiB of Q, K and V outputs).
void Linear::run_int8(const kernels::KernelTable& k, const float* x, float* writable, size_t m, size_t ldx, float* y,
                      size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                      const threading::ThreadPool* pool) const {
  alignas(64) float taken[kTakenFloats];
  const size_t pass = num_outliers_ == 0 ? m : outlier_pass_rows(writable != nullptr);
  const size_t scales_per_row = activation_scales_per_row();
  for (size_t r0 = 0; r0 < m; r0 += pass) {
    const size_t rows = m - r0 < pass ? m - r0 : pass;
    const float* xr = x + r0 * ldx;
    float* yr = y + r0 * ldy;
    threading::parallel_ranges(pool, rows, threading::min_items_for(4 * in_), [&](size_t, size_t b, size_t e) {
      QuantScratch part = scratch;
      part.q += b * in_;
      part.scales += b * scales_per_row;
      if (writable == nullptr) return quantize_activations(k, xr + b * ldx, e - b, ldx, part);
      take_outliers(writable + (r0 + b) * ldx, e - b, ldx, taken + b * num_outliers_);
      quantize_rows(k, xr + b * ldx, e - b, ldx, part.q, part.scales);
    });
    const float* kept = writable == nullptr ? nullptr : taken;
    // Packed weights: ranges of whole tiles of the kernel (fewer than 4 rows run its GEMV loop,
    // which takes any number of blocks).
    const size_t step = row_sums_ != nullptr && rows >= 4 ? k.gemm_i8_packed_n_step : kOutputTileRows;
    for_each_output_range(pool, rows, out_, in_, step, [&](size_t n0, size_t n1) {
      forward_rows(k, xr, kept, ldx, scratch.q, rows, in_, yr, ldy, act, accumulate, scratch, n0, n1);
    });
  }
}

size_t Linear::outlier_pass_rows(bool consuming) const {
  constexpr size_t kPassBytes = 512 * 1024;  // of outputs per pass; L2 is 512 KiB-2 MiB on targets
  constexpr size_t kRowMultiple = 16;        // whole row tiles of the int8 kernels
  size_t rows = kPassBytes / (out_ * sizeof(float)) / kRowMultiple * kRowMultiple;
  if (consuming && rows * num_outliers_ > kTakenFloats) {
    rows = kTakenFloats / num_outliers_ / kRowMultiple * kRowMultiple;
  }
  return rows < kRowMultiple ? kRowMultiple : rows;
}

namespace {

// The fields every GEMM kernel's parameters share, for output rows [n0, n1) of one call.
struct GemmCall {
  size_t m, n0, n1, k;
  const void* a;
  size_t lda;
  const float* bias;
  kernels::Activation activation;
  bool accumulate;
  float* y;
  size_t ldy;
};

template <typename Params, typename A>
Params gemm_params(const GemmCall& call) {
  Params p;
  p.m = call.m;
  p.n = call.n1 - call.n0;
  p.k = call.k;
  p.a = static_cast<const A*>(call.a);
  p.lda = call.lda;
  p.bias = call.bias;
  p.activation = call.activation;
  p.accumulate = call.accumulate;
  p.c = call.y + call.n0;
  p.ldc = call.ldy;
  return p;
}

}  // namespace

void Linear::forward_rows(const kernels::KernelTable& k, const float* x, const float* taken, size_t ldx, const void* a,
                          size_t m, size_t lda, float* y, size_t ldy, kernels::Activation act, bool accumulate,
                          const QuantScratch& scratch, size_t n0, size_t n1) const {
  // GELU, GELU-tanh and SiLU run afterwards over the range through the vectorized activate slot:
  // the GEMM epilogues evaluate them one value at a time (ReLU stays fused, unless the outlier
  // channels' float32 products must come first; no caller combines accumulate and an activation).
  const bool activate_after = !accumulate && act != kernels::Activation::kNone &&
                              (act != kernels::Activation::kRelu || num_outliers_ > 0);
  gemm_rows(k, a, m, lda, y, ldy, activate_after ? kernels::Activation::kNone : act, accumulate, scratch, n0, n1);
  if (num_outliers_ > 0) add_outliers(k, x, taken, m, ldx, y, ldy, n0, n1);
  if (activate_after) {
    for (size_t r = 0; r < m; ++r) k.activate(y + r * ldy + n0, n1 - n0, act);
  }
}

void Linear::gemm_rows(const kernels::KernelTable& k, const void* a, size_t m, size_t lda, float* y, size_t ldy,
                       kernels::Activation act, bool accumulate, const QuantScratch& scratch, size_t n0,
                       size_t n1) const {
  const float* bias = bias_.data() == nullptr ? nullptr : bias_.data() + n0;
  const GemmCall call{m, n0, n1, in_, a, lda, bias, act, accumulate, y, ldy};
  if (dtype_ == fb::DType::I8 && row_sums_ != nullptr) {
    // Ranges start on whole 16-row blocks (output_ranges.h), so block n0 / 16 begins
    // n0 * round_up(K, 4) bytes into the packed weights.
    auto p = gemm_params<kernels::GemmI8PackedParams, int8_t>(call);
    p.a_scales = scratch.scales;
    p.packed = static_cast<const int8_t*>(weight_) + kernels::packed_i8_16x4_block(n0, in_);
    p.row_sums = row_sums_ + n0;
    p.b_scales = scales_ + n0;
    p.a_block = a_block_;
    if (a_block_ != 0) {
      const size_t blocks = (in_ + a_block_ - 1) / a_block_;
      p.block_lanes = lanes() + n0 / 16 * blocks;  // n0 starts a 16-row block
      p.b_scales_per_block = group_size_ != 0;  // the loader allows only group size == a_block_
      if (p.b_scales_per_block) p.b_scales = scales_ + n0 * blocks;
    }
    k.gemm_i8_packed(p);
  } else if (dtype_ == fb::DType::I8) {
    const size_t groups = group_size_ == 0 ? 1 : format::groups_per_row(fb::Quantization::PerGroup, in_, group_size_);
    auto p = gemm_params<kernels::GemmI8Params, int8_t>(call);
    p.a_scales = scratch.scales;
    p.b = static_cast<const int8_t*>(weight_) + n0 * in_;
    p.ldb = in_;
    p.b_scales = scales_ + n0 * groups;
    p.group_size = group_size_;
    k.gemm_i8(p);
  } else if (dtype_ == fb::DType::F16) {
    auto p = gemm_params<kernels::GemmF16Params, float>(call);
    p.b = static_cast<const uint16_t*>(weight_) + n0 * in_;
    p.ldb = in_;
    k.gemm_f16(p);
  } else {
    auto p = gemm_params<kernels::GemmF32Params, float>(call);
    p.b = static_cast<const float*>(weight_) + n0 * in_;
    p.ldb = in_;
    k.gemm_f32(p);
  }
}

}  // namespace heed::layers
