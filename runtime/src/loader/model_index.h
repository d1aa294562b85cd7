// The runtime's view of a loaded .heed file: the FlatBuffers types of the index (generated from
// schema/heed.fbs), one TensorView per tensor, and the accessors that reach them from a Model.
// Internal: programs use heed/model.h, which names none of these types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "heed/model.h"
#include "heed/tokenizer.h"
#include "heed_generated.h"  // flatc output of schema/heed.fbs

namespace heed {

// One tensor of the file. `data` points into the mapping; `scales` (quantized tensors only) too.
struct TensorView {
  std::string_view name;
  std::vector<uint32_t> shape;
  fb::DType dtype = fb::DType::F32;
  fb::Quantization quantization = fb::Quantization::None;
  fb::Layout layout = fb::Layout::RowMajor;
  uint32_t group_size = 0;
  const void* data = nullptr;
  uint64_t size_bytes = 0;
  const float* scales = nullptr;  // PerTensor: 1, PerRow: rows(), PerGroup: rows() * groups_per_row()
  size_t num_scales = 0;
  const int32_t* row_sums = nullptr;  // layout Packed16x4: sum_k q[n, k] for each of the rows()
  uint32_t activation_block = 0;      // Packed16x4: activations quantized per block of K (0: per row)
  // Packed16x4: input channels computed in float32 (Tensor.outlier_channels, increasing, < K) and
  // their weights, [num_outlier_channels, rows()] (one row of N per channel).
  const uint32_t* outlier_channels = nullptr;
  size_t num_outlier_channels = 0;
  const float* outlier_weights = nullptr;

  size_t rows() const { return shape.empty() ? 1 : shape[0]; }
  size_t row_size() const;        // product of shape[1..]
  size_t num_elements() const;
  template <typename T> const T* as() const { return static_cast<const T*>(data); }
};

// The file's tokenizer kind as the API names it: the same values.
inline TokenizerKind api_tokenizer_kind(fb::TokenizerKind kind) { return static_cast<TokenizerKind>(kind); }
static_assert(static_cast<int>(fb::TokenizerKind::Whitespace) == static_cast<int>(TokenizerKind::Whitespace) &&
              static_cast<int>(fb::TokenizerKind::Characters) == static_cast<int>(TokenizerKind::Characters) &&
              static_cast<int>(fb::TokenizerKind::SentencePiece) == static_cast<int>(TokenizerKind::SentencePiece) &&
              static_cast<int>(fb::TokenizerKind::ByteBPE) == static_cast<int>(TokenizerKind::ByteBPE) &&
              static_cast<int>(fb::TokenizerKind::WordPiece) == static_cast<int>(TokenizerKind::WordPiece) &&
              static_cast<int>(fb::TokenizerKind::ByteLevelBPE) == static_cast<int>(TokenizerKind::ByteLevelBPE) &&
              static_cast<int>(fb::TokenizerKind::Unigram) == static_cast<int>(TokenizerKind::Unigram),
              "heed::TokenizerKind mirrors the schema's TokenizerKind");

// What a Model holds of its file besides the bytes (heed/model.h keeps it opaque).
struct Model::Contents {
  const fb::Model* index = nullptr;  // the verified FlatBuffers index
  const uint8_t* weights = nullptr;  // the weights section
  std::vector<TensorView> tensors;
  std::unordered_map<std::string_view, size_t> by_name;  // tensor name -> index into tensors
};

// The FlatBuffers index of the file and its tensors, in file order.
inline const fb::Model& file_index(const Model& model) { return *model_contents(model).index; }
inline const std::vector<TensorView>& file_tensors(const Model& model) { return model_contents(model).tensors; }
// nullptr when absent.
const TensorView* find_tensor(const Model& model, std::string_view name);
// Looks up a tensor that the model family requires; an error names it when missing.
Status require_tensor(const Model& model, std::string_view name, const TensorView** out);

inline fb::ModelConfig model_family(const Model& model) { return file_index(model).config_type(); }

const char* dtype_name(fb::DType dtype);
size_t dtype_size(fb::DType dtype);

}  // namespace heed
