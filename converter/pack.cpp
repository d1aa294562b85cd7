#include "pack.h"

#include <cstring>

#include "heed/kernels.h"
#include "heed_format/quantization.h"
#include "heed_format/tensor_names.h"

namespace heed::convert {

Status parse_weight_layout(const std::string& text, WeightLayout* out) {
  if (text == "auto") {
    *out = WeightLayout::kAuto;
  } else if (text == "row-major") {
    *out = WeightLayout::kRowMajor;
  } else if (text == "packed16x4") {
    *out = WeightLayout::kPacked16x4;
  } else {
    return invalid_argument("unknown weight layout '" + text + "' (expected auto, row-major or packed16x4)");
  }
  return Status::success();
}

const char* weight_layout_name(WeightLayout layout) {
  switch (layout) {
    case WeightLayout::kAuto: return "auto";
    case WeightLayout::kRowMajor: return "row-major";
    case WeightLayout::kPacked16x4: return "packed16x4";
  }
  return "?";
}

std::string tied_output_table(const NeutralModel& model) {
  // The tables the runtime reuses as the projection (encoder_decoder.cpp, decoder_only.cpp,
  // encoder_heads.cpp): the decoder's, or the encoder's when one table is shared and
  // only that one is stored.
  if (const auto* c = model.config.AsTransformerEncoderDecoder(); c != nullptr && c->tied_output) {
    if (c->shared_embeddings && model.find("decoder.embeddings") == nullptr && model.find("encoder.embeddings") != nullptr) {
      return "encoder.embeddings";
    }
    return "decoder.embeddings";
  }
  if (const auto* c = model.config.AsTransformerDecoderOnly(); c != nullptr && c->tied_output) return "decoder.embeddings";
  // A masked-LM head without its own output weight projects onto the word embeddings.
  if (const auto* c = model.config.AsTransformerEncoderOnly();
      c != nullptr && c->head == fb::EncoderHead::MaskedLM && model.find("encoder.mlm.output.weight") == nullptr) {
    return "encoder.embeddings";
  }
  return "";
}

bool packable(const NeutralTensor& t, const std::string& tied_table) {
  return t.layout == fb::Layout::RowMajor && t.dtype == fb::DType::I8 && t.shape.size() == 2 &&
         format::packable_quantization(t.quantization, t.group_size, t.activation_block) &&
         (names::is_linear_weight(t.name) || t.name == tied_table);
}

Status pack_model(NeutralModel* model, WeightLayout layout, size_t* packed, std::vector<TensorReport>* report,
                  const std::function<void(size_t, size_t)>& progress) {
  if (packed) *packed = 0;
  if (layout == WeightLayout::kRowMajor) return Status::success();
  std::vector<NeutralTensor> sums;
  const std::string tied = tied_output_table(*model);
  const size_t total = model->tensors.size();
  for (size_t i = 0; i < total; ++i) {
    if (progress) progress(i, total);
    NeutralTensor& t = model->tensors[i];
    if (!packable(t, tied)) continue;
    const std::string sums_name = names::row_sums(t.name);
    if (model->find(sums_name)) return invalid_argument("tensor '" + sums_name + "' already exists");
    const size_t n = t.shape[0], k = t.shape[1];
    std::vector<uint8_t> bytes(kernels::packed_i8_16x4_bytes(n, k));
    std::vector<int32_t> row_sums(n);
    kernels::pack_i8_16x4(reinterpret_cast<const int8_t*>(t.bytes.data()), n, k, k,
                          reinterpret_cast<int8_t*>(bytes.data()), row_sums.data());
    t.bytes = std::move(bytes);
    t.layout = fb::Layout::Packed16x4;
    t.row_sums = sums_name;
    NeutralTensor s;
    s.name = sums_name;
    s.shape = {static_cast<uint32_t>(n)};
    s.dtype = fb::DType::I32;
    s.bytes.resize(n * sizeof(int32_t));
    std::memcpy(s.bytes.data(), row_sums.data(), s.bytes.size());  // little-endian, like every tensor
    sums.push_back(std::move(s));
    if (report) {
      for (auto& r : *report) {
        if (r.name == t.name) r.stored += ", packed 16x4";
      }
    }
    if (packed) ++*packed;
  }
  for (auto& s : sums) model->tensors.push_back(std::move(s));
  for (NeutralTensor& t : model->tensors) {  // only packed weights have activation blocks
    if (t.layout != fb::Layout::Packed16x4) t.activation_block = 0;
  }
  if (progress) progress(total, total);
  return Status::success();
}

size_t set_activation_blocks(NeutralModel* model, uint32_t block) {
  size_t count = 0;
  const std::string tied = tied_output_table(*model);
  for (NeutralTensor& t : model->tensors) {
    if (t.dtype != fb::DType::I8 || !(names::is_linear_weight(t.name) || t.name == tied)) continue;
    t.activation_block = block;
    ++count;
  }
  return count;
}

}  // namespace heed::convert
