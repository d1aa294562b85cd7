// The converter's in-memory model: what every reader produces and what the writer serializes.
// Readers fill it from a source format; quantize.h turns its f32 tensors into the stored dtypes;
// heed_writer.h lays it out as a .heed file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "heed_generated.h"

namespace heed::convert {

struct NeutralTensor {
  std::string name;
  std::vector<uint32_t> shape;
  fb::DType dtype = fb::DType::F32;
  fb::Quantization quantization = fb::Quantization::None;
  uint32_t group_size = 0;
  std::string scales;          // name of the f32 scale tensor (quantized tensors), real = q * scale
  fb::Layout layout = fb::Layout::RowMajor;
  std::string row_sums;        // Packed16x4: name of the int32 [N] row sums tensor
  uint32_t activation_block = 0;  // Packed16x4: activations quantized per block of K (0: per row)
  std::vector<uint32_t> outlier_channels;  // input channels kept in float32 (outliers.h)
  std::string outliers;                    // name of their F32 [channels, N] weights
  std::vector<uint8_t> bytes;  // raw little-endian values in `dtype`, ordered by `layout`
  bool quantizable = false;    // a weight matrix the quantizer may turn into int8

  size_t num_elements() const;
};

struct NeutralModel {
  fb::ModelConfigUnion config;                          // family + hyperparameters
  fb::TokenizerT tokenizer;
  fb::ProducerT producer;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<NeutralTensor> tensors;
  std::optional<fb::VocabMapT> vocab_map;  // the vocabulary shortlist (vocab_map.h), when one was given
  std::optional<fb::ChatTemplateT> chat_template;  // the chat format (chat/recognize.h), when the source has a template

  NeutralTensor* find(const std::string& name);
  const NeutralTensor* find(const std::string& name) const;
  // Removes the named tensor and, when it is quantized, its scale tensor. False when absent.
  bool remove(const std::string& name);
  // Records heed convert as the producer of a model read from `source_name` in `format` (the
  // format's --from name), also as the "source_format" metadata entry.
  void set_producer(const char* format, const std::string& source_name);
  // Adds an f32 tensor from values.
  NeutralTensor& add_f32(std::string name, std::vector<uint32_t> shape, const float* values);
};

}  // namespace heed::convert
