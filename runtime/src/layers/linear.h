// A linear (fully connected) layer y = act(x W^T + b) (+ y) over weights used in place from the
// mapping: int8 (per-tensor, per-row or per-group scales), f16 or f32, row-major [out, in].
//
// int8: the activations are quantized per row on the fly (kernels quantize_rows_i8: scale =
// max|x| / 127, q = round(x * 127 / max|x|)), multiplied in int32 and dequantized with
// row_scale * weight_scale in the GEMM epilogue, where bias, activation and the residual add are
// fused. Packed weights with an activation block (Tensor.activation_block) have their activations
// quantized per block of K instead, each block with its own scale (the same kernel). The quantized activations go to a caller-provided scratch (part of the session arena).
// int8 weights stored in the 16x4 packed layout (per-row or per-tensor scales, row sums beside
// them; written so by `heed convert`) are read in place by gemm_i8_packed, with the same result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/kernels.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed/status.h"
#include "layers/weights.h"
#include "layers/xnnpack_gemm.h"

namespace heed::threading {
class ThreadPool;
}

namespace heed::layers {

// Activation blocks are a multiple of this many values (schema: Tensor.activation_block).
constexpr size_t kMinActivationBlock = 16;
// Scales per row of quantized activations of at most `max_cols` values: one per row, or one per
// block of K for weights with activation blocks (at most one per 16 values). Scratch plans hold
// rows x this many floats.
inline size_t quant_scales_per_row(size_t max_cols) {
  return max_cols == 0 ? 1 : (max_cols + kMinActivationBlock - 1) / kMinActivationBlock;
}

// Room for quantized activations: rows x cols int8 plus rows x quant_scales_per_row(cols) scales. `staging` (optional,
// `staging_floats` floats): where the XNNPACK backend writes x W^T + b before adding it to y for
// layers called with accumulate (XNNPACK has no residual epilogue); without it those calls run
// heed's kernel.
struct QuantScratch {
  int8_t* q = nullptr;
  float* scales = nullptr;
  size_t max_rows = 0;
  size_t max_cols = 0;
  float* staging = nullptr;
  size_t staging_floats = 0;
};

// Calibration (heed convert --outlier-channels): while a recorder is installed on a thread, every
// Linear::forward on that thread first reports its input rows with the layer's weight name.
class InputRecorder {
 public:
  virtual ~InputRecorder() = default;
  virtual void record(const std::string& weight, const float* x, size_t m, size_t in, size_t ldx) = 0;
};
// Installs `recorder` (nullptr: none) for the calling thread; returns the one it replaces.
InputRecorder* set_input_recorder(InputRecorder* recorder);

class Linear {
 public:
  // Loads `weight_name` [out, in] and, when `bias_name` is non-empty, the optional bias [out].
  Status load(const Model& model, const std::string& weight_name, const std::string& bias_name,
              size_t out, size_t in);
  // Loads PREFIX.weight and the optional PREFIX.bias.
  Status load(const Model& model, const std::string& prefix, size_t out, size_t in) {
    return load(model, prefix + ".weight", prefix + ".bias", out, in);
  }

  size_t out_features() const { return out_; }
  size_t in_features() const { return in_; }
  fb::DType dtype() const { return dtype_; }

  // Hands f32 calls with at least `min_rows` rows to XNNPACK (layers/xnnpack_gemm.h): creates the
  // operator now (XNNPACK packs a copy of the weights) and, for a mapped file, releases the
  // mapped weights' pages (Model::release_pages). Calls it cannot take (non-contiguous rows,
  // accumulate without staging room) keep running heed's gemm_f32. Non-f32 weights: no-op.
  Status use_xnnpack(size_t min_rows);
  bool uses_xnnpack() const { return xnnpack_ != nullptr; }
  // Whether use_xnnpack() hands this layer to XNNPACK: loaded float32 weights.
  bool xnnpack_eligible() const { return dtype_ == fb::DType::F32 && weight_ != nullptr; }

  // y[m, out] (row stride ldy) = act(x[m, in] (row stride ldx) W^T + b) (+ y when accumulate).
  // m must not exceed scratch.max_rows, in must not exceed scratch.max_cols (int8 weights).
  // With a pool, the output rows are split between its threads (layers/output_ranges.h); the
  // result is bitwise the same as without. On the XNNPACK path the pool's threads run XNNPACK's
  // own tiling (also the same result for any thread count).
  void forward(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, float* y,
               size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
               const threading::ThreadPool* pool = nullptr) const {
    run(k, x, nullptr, m, ldx, y, ldy, act, accumulate, scratch, pool);
  }
  // forward() for an x the caller is done with (an attention context, an FFN's inner rows): the
  // outlier channels are taken out of x itself (set to 0 after their values are kept) instead of
  // each row being copied to zero them. The same bits in y; x's outlier channels are 0 after.
  void forward_consuming(const kernels::KernelTable& k, float* x, size_t m, size_t ldx, float* y, size_t ldy,
                         kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                         const threading::ThreadPool* pool = nullptr) const {
    run(k, x, x, m, ldx, y, ldy, act, accumulate, scratch, pool);
  }

  // Vocabulary shortlists (models/vocab_shortlist.h): `out` becomes the layer of this one's output
  // rows rows[0], rows[1], ... rows[count - 1] (any order), their weights, scales, row sums, bias and
  // outlier weights copied into `storage` in this layer's own format, so each output is bitwise the
  // one this layer's kernels compute for that row. `storage`: gathered_bytes(capacity) bytes,
  // 64-byte aligned, count <= capacity, rows inside [0, out_features()). `out` runs heed's kernels
  // (never XNNPACK) and reads `storage` until it is gathered again.
  size_t gathered_bytes(size_t capacity) const;
  void gather_rows(const int32_t* rows, size_t count, void* storage, Linear* out) const;

 private:
  // The XNNPACK path; false when this call is not one it takes (heed's kernels then run).
  bool forward_xnnpack(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, float* y,
                       size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                       const threading::ThreadPool* pool) const;
  // forward() and forward_consuming(): `writable` is x when the call may zero x's outlier channels.
  void run(const kernels::KernelTable& k, const float* x, float* writable, size_t m, size_t ldx, float* y,
           size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
           const threading::ThreadPool* pool) const;
  // The int8 path of run().
  void run_int8(const kernels::KernelTable& k, const float* x, float* writable, size_t m, size_t ldx, float* y,
                size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                const threading::ThreadPool* pool) const;
  // Moves the outlier channels of m rows of x into taken[r * num_outliers_ + j] and sets them to 0.
  void take_outliers(float* x, size_t m, size_t ldx, float* taken) const;
  // block_lanes_ from the packed weights and scales (once, at load).
  void pack_block_lanes();
  Status use_int8_scales(const TensorView& w);
  // x's rows as int8 into scratch.q with their scales: per row, or per activation block; outlier
  // channels count as 0.
  void quantize_activations(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx,
                            const QuantScratch& scratch) const;
  // quantize_activations' kernel calls for m rows of x into q (rows of in_) and scales.
  void quantize_rows(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, int8_t* q,
                     float* scales) const;
  // Rows per pass of forward() when the layer has outlier channels (consuming: their values fit
  // run_int8's stack buffer too).
  size_t outlier_pass_rows(bool consuming) const;
  // Scales of one quantized activation row: one per block of K (a_block_), else one.
  size_t activation_scales_per_row() const { return a_block_ == 0 ? 1 : (in_ + a_block_ - 1) / a_block_; }
  // y[:, n0:n1) += x's outlier channels times their float32 weights (axpy_rows_f32); `taken`:
  // the channels' values as take_outliers() left them, else null (read from x).
  void add_outliers(const kernels::KernelTable& k, const float* x, const float* taken, size_t m, size_t ldx,
                    float* y, size_t ldy, size_t n0, size_t n1) const;
  // The GEMM for output rows [n0, n1) of y; `a` is x (f32, f16) or the quantized x (int8); `taken`
  // as in add_outliers().
  void forward_rows(const kernels::KernelTable& k, const float* x, const float* taken, size_t ldx, const void* a,
                    size_t m, size_t lda, float* y, size_t ldy, kernels::Activation act, bool accumulate,
                    const QuantScratch& scratch, size_t n0, size_t n1) const;
  // forward_rows' kernel call, the activation in the kernel's epilogue.
  void gemm_rows(const kernels::KernelTable& k, const void* a, size_t m, size_t lda, float* y,
                    size_t ldy, kernels::Activation act, bool accumulate, const QuantScratch& scratch,
                    size_t n0, size_t n1) const;

  const Model* model_ = nullptr;  // the file the weights live in (for release_pages)
  std::string name_;              // the weight tensor's name (for an InputRecorder)
  size_t out_ = 0, in_ = 0;
  fb::DType dtype_ = fb::DType::F32;
  const void* weight_ = nullptr;
  const float* scales_ = nullptr;      // int8: per row, or per group (group_size_ > 0)
  std::vector<float> expanded_scales_; // int8 per-tensor: the one scale repeated per row
  size_t group_size_ = 0;
  const int32_t* row_sums_ = nullptr;  // non-null: weight_ is in the 16x4 packed layout
  size_t a_block_ = 0;                 // packed: activations quantized per block of K (0: per row)
  // packed: input channels computed in float32 and their weights [num_outliers_, out_]
  // (TensorView::outlier_channels).
  const uint32_t* outlier_channels_ = nullptr;
  size_t num_outliers_ = 0;
  const float* outlier_weights_ = nullptr;
  // a_block_: the weights' per-block row sums and scales in the kernels' lane layout
  // (kernels::pack_block_lanes); a gathered layer's are in its storage (gathered_lanes_).
  std::vector<kernels::BlockLanes> block_lanes_;
  const kernels::BlockLanes* gathered_lanes_ = nullptr;
  const kernels::BlockLanes* lanes() const { return gathered_lanes_ != nullptr ? gathered_lanes_ : block_lanes_.data(); }
  F32Vector bias_;
  // Set by use_xnnpack. Shared so Linear stays copyable (model families copy layers while loading,
  // before use_xnnpack); one operator must not run from two sessions at once.
  std::shared_ptr<XnnpackGemm> xnnpack_;
  size_t xnnpack_min_rows_ = 0;
};

}  // namespace heed::layers
