// NeutralModel -> .heed bytes -> file. The writer refuses inconsistent models up front (with the
// tensor named), lays weights out 64-byte aligned, and finally runs the runtime loader on its own
// output so a file that heed writes is always a file heed can load.
#include "heed_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>

#include "heed/kernels.h"
#include "heed/model.h"
#include "heed_format/quantization.h"
#include "loader/model_index.h"

namespace heed::convert {

namespace {

uint64_t align64(uint64_t n) { return (n + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment; }

bool known_dtype(fb::DType d) { return static_cast<unsigned>(d) <= static_cast<unsigned>(fb::DType::MAX); }
bool known_quantization(fb::Quantization q) {
  return static_cast<unsigned>(q) <= static_cast<unsigned>(fb::Quantization::MAX);
}

// A packed tensor: int8 [N, K] with per-row or per-tensor scales and an int32 [N] row sums tensor.
Status check_packed(const NeutralTensor& t, const std::unordered_map<std::string, const NeutralTensor*>& by_name) {
  const std::string at = "tensor '" + t.name + "': ";
  if (t.dtype != fb::DType::I8 || t.shape.size() != 2 ||
      !format::packable_quantization(t.quantization, t.group_size, t.activation_block)) {
    return invalid_argument(at + "only 2-D int8 with per-row or per-tensor scales (or per-group ones of its activation "
                            "block's size) can be packed 16x4");
  }
  auto r = by_name.find(t.row_sums);
  if (t.row_sums.empty() || r == by_name.end()) {
    return invalid_argument(at + "row sums tensor '" + t.row_sums + "' is missing");
  }
  const NeutralTensor& sums = *r->second;
  if (sums.dtype != fb::DType::I32 || sums.shape != std::vector<uint32_t>{t.shape[0]}) {
    return invalid_argument(at + "row sums tensor '" + t.row_sums + "' is not I32 of shape [" +
                            std::to_string(t.shape[0]) + "]");
  }
  return Status::success();
}

Status check_tensor(const NeutralTensor& t, const std::unordered_map<std::string, const NeutralTensor*>& by_name) {
  const std::string at = "tensor '" + t.name + "': ";
  if (t.name.empty()) return invalid_argument("a tensor has an empty name");
  if (t.shape.empty()) return invalid_argument(at + "empty shape");
  if (!t.row_sums.empty() && t.layout != fb::Layout::Packed16x4) {
    return invalid_argument(at + "names row sums but is not packed");
  }
  if (!known_dtype(t.dtype)) return invalid_argument(at + "unknown dtype");
  if (!known_quantization(t.quantization)) return invalid_argument(at + "unknown quantization");
  uint64_t elements = 1;
  for (uint32_t d : t.shape) {
    if (d == 0) return invalid_argument(at + "zero dimension in its shape");
    if (elements > std::numeric_limits<uint64_t>::max() / 8 / d) return invalid_argument(at + "shape is too large");
    elements *= d;
  }
  if (t.layout != fb::Layout::RowMajor && t.layout != fb::Layout::Packed16x4) return invalid_argument(at + "unknown layout");
  const bool packed = t.layout == fb::Layout::Packed16x4;
  if (packed) HEED_RETURN_IF_ERROR(check_packed(t, by_name));
  const uint64_t want = packed ? kernels::packed_i8_16x4_bytes(t.shape[0], t.shape[1]) : elements * dtype_size(t.dtype);
  if (t.bytes.size() != want) {
    return invalid_argument(at + "has " + std::to_string(t.bytes.size()) + " bytes but its shape needs " +
                            std::to_string(want) + " (" + std::to_string(elements) + " " + dtype_name(t.dtype) + ")");
  }
  const bool quantized = t.quantization != fb::Quantization::None;
  if (t.dtype == fb::DType::I8 && !quantized) return invalid_argument(at + "int8 tensor without quantization scales");
  if (t.dtype != fb::DType::I8 && quantized) {
    return invalid_argument(at + dtype_name(t.dtype) + " tensor cannot be quantized");
  }
  if (!quantized) return Status::success();
  if (t.quantization == fb::Quantization::PerGroup && t.group_size == 0) {
    return invalid_argument(at + "per-group quantization with group size 0");
  }
  auto s = by_name.find(t.scales);
  if (t.scales.empty() || s == by_name.end()) {
    return invalid_argument(at + "scales tensor '" + t.scales + "' is missing");
  }
  const NeutralTensor& scales = *s->second;
  if (scales.dtype != fb::DType::F32) return invalid_argument(at + "scales tensor '" + t.scales + "' is not F32");
  const uint64_t rows = t.shape[0];
  const uint64_t row_size = elements / rows;
  const uint64_t count = format::scale_count(t.quantization, rows, row_size, t.group_size);
  if (scales.bytes.size() != count * sizeof(float)) {
    return invalid_argument(at + "scales tensor '" + t.scales + "' has " + std::to_string(scales.bytes.size() / 4) +
                            " values but " + fb::EnumNameQuantization(t.quantization) + " quantization needs " +
                            std::to_string(count));
  }
  return Status::success();
}

Status check_model(const NeutralModel& model) {
  if (model.config.type == fb::ModelConfig::NONE || !model.config.value) {
    return invalid_argument("model has no family configuration");
  }
  std::unordered_map<std::string, const NeutralTensor*> by_name;
  for (const auto& t : model.tensors) {
    if (!by_name.emplace(t.name, &t).second) return invalid_argument("tensor '" + t.name + "' appears twice");
  }
  for (const auto& t : model.tensors) HEED_RETURN_IF_ERROR(check_tensor(t, by_name));
  return Status::success();
}

// Metadata sorted by key into the index; a key given twice is an error.
Status add_metadata(std::vector<std::pair<std::string, std::string>> metadata, fb::ModelT* index) {
  std::sort(metadata.begin(), metadata.end());
  for (size_t i = 0; i < metadata.size(); ++i) {
    if (i > 0 && metadata[i].first == metadata[i - 1].first) {
      return invalid_argument("metadata key '" + metadata[i].first + "' appears twice");
    }
    auto kv = std::make_unique<fb::KeyValueT>();
    kv->key = metadata[i].first;
    kv->value = metadata[i].second;
    index->metadata.push_back(std::move(kv));
  }
  return Status::success();
}

// One index entry per tensor, in `order`, their bytes at 64-byte aligned offsets; sets weights_size.
void add_tensor_entries(const std::vector<const NeutralTensor*>& order, fb::ModelT* index) {
  uint64_t offset = 0;
  for (const NeutralTensor* t : order) {
    auto e = std::make_unique<fb::TensorT>();
    e->name = t->name;
    e->shape = t->shape;
    e->dtype = t->dtype;
    e->quantization = t->quantization;
    e->group_size = t->group_size;
    e->scales = t->scales;
    e->layout = t->layout;
    e->row_sums = t->row_sums;
    e->activation_block = t->activation_block;
    e->outlier_channels = t->outlier_channels;
    e->outliers = t->outliers;
    e->offset = offset;
    e->size = t->bytes.size();
    offset = align64(offset + t->bytes.size());
    index->tensors.push_back(std::move(e));
  }
  index->weights_size = offset;
}

// The loader's checks cover what the writer cannot see (hyperparameters, tokenizer ids).
Status check_loads(std::vector<uint8_t>* out) {
  std::unique_ptr<Model> loaded;
  Status check = Model::from_bytes(out->data(), out->size(), &loaded);
  if (!check.is_ok()) {
    out->clear();
    std::string message = check.message();
    const std::string prefix = "<memory>: ";
    if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
    return invalid_argument("the model is inconsistent: " + message);
  }
  return Status::success();
}

}  // namespace

Status serialize_heed(const NeutralModel& model, std::vector<uint8_t>* out) {
  out->clear();
  HEED_RETURN_IF_ERROR(check_model(model));

  // Tensors sorted by name: the loader binary-searches and rejects unsorted tables.
  std::vector<const NeutralTensor*> order;
  order.reserve(model.tensors.size());
  for (const auto& t : model.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const NeutralTensor* a, const NeutralTensor* b) { return a->name < b->name; });

  fb::ModelT index;
  index.format_version = kFormatVersionWithoutOutliers;
  for (const NeutralTensor& t : model.tensors) {
    if (!t.outlier_channels.empty()) index.format_version = kFormatVersion;
  }
  index.producer = std::make_unique<fb::ProducerT>(model.producer);
  index.config = model.config;
  index.tokenizer = std::make_unique<fb::TokenizerT>(model.tokenizer);
  if (model.vocab_map) index.vocab_map = std::make_unique<fb::VocabMapT>(*model.vocab_map);
  if (model.chat_template) index.chat_template = std::make_unique<fb::ChatTemplateT>(*model.chat_template);
  HEED_RETURN_IF_ERROR(add_metadata(model.metadata, &index));
  add_tensor_entries(order, &index);

  flatbuffers::FlatBufferBuilder builder(1 << 16);
  fb::FinishSizePrefixedModelBuffer(builder, fb::CreateModel(builder, &index));
  const uint64_t segment = align64(builder.GetSize());
  out->assign(segment + index.weights_size, 0);
  std::memcpy(out->data(), builder.GetBufferPointer(), builder.GetSize());
  for (size_t i = 0; i < order.size(); ++i) {
    if (!order[i]->bytes.empty()) {
      std::memcpy(out->data() + segment + index.tensors[i]->offset, order[i]->bytes.data(), order[i]->bytes.size());
    }
  }
  return check_loads(out);
}

}  // namespace heed::convert
