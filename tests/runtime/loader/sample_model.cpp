#include "sample_model.h"

#include <stdexcept>

#include "heed_writer.h"
#include "loader/model_index.h"

namespace heed::test {

namespace {

// Deterministic bytes (a 32-bit LCG), so every run builds the same file.
std::vector<uint8_t> pattern_bytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> out(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& b : out) {
    s = s * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(s >> 24);
  }
  return out;
}

std::vector<float> pattern_floats(size_t n, uint32_t seed) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = 0.01f * float((i * 37 + seed * 11) % 200) - 1.0f;
  return out;
}

fb::TransformerStackT stack(uint32_t vocab) {
  fb::TransformerStackT s;
  s.num_layers = 1;
  s.d_model = 8;
  s.num_heads = 2;
  s.ffn_dim = 16;
  s.vocab_size = vocab;
  return s;
}

void add_int8(convert::NeutralModel& m, const std::string& name, std::vector<uint32_t> shape, fb::Quantization q,
              uint32_t group_size, std::vector<uint32_t> scale_shape, uint32_t seed) {
  convert::NeutralTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = fb::DType::I8;
  t.quantization = q;
  t.group_size = group_size;
  t.scales = name + ".scales";
  t.bytes = pattern_bytes(t.num_elements(), seed);
  size_t n_scales = 1;
  for (uint32_t d : scale_shape) n_scales *= d;
  std::vector<float> scales = pattern_floats(n_scales, seed + 100);
  for (auto& s : scales) s = 0.001f + s * s;  // positive, like real scales
  m.tensors.push_back(std::move(t));
  m.add_f32(name + ".scales", std::move(scale_shape), scales.data());
}

}  // namespace

convert::NeutralModel make_sample_model() {
  convert::NeutralModel m;
  fb::TransformerEncoderDecoderT config;
  config.encoder = std::make_unique<fb::TransformerStackT>(stack(10));
  config.decoder = std::make_unique<fb::TransformerStackT>(stack(10));
  m.config.Set(std::move(config));

  m.producer.name = "heed convert";
  m.producer.version = "test";
  m.producer.source_format = "loader-test";
  m.producer.source_name = "sample";
  m.metadata = {{"target_language", "en"}, {"license", "MIT"}, {"source_language", "ar"}};

  m.tokenizer.kind = fb::TokenizerKind::Whitespace;
  m.tokenizer.source_vocabulary = std::make_unique<fb::VocabularyT>();
  m.tokenizer.target_vocabulary = std::make_unique<fb::VocabularyT>();
  for (int i = 0; i < 10; ++i) {
    m.tokenizer.source_vocabulary->tokens.push_back("s" + std::to_string(i));
    m.tokenizer.target_vocabulary->tokens.push_back("t" + std::to_string(i));
  }
  m.tokenizer.unk_id = 3;
  m.tokenizer.bos_id = 1;
  m.tokenizer.eos_id = 2;
  m.tokenizer.pad_id = 0;

  // Added out of name order on purpose: the writer must sort.
  std::vector<float> emb = pattern_floats(10 * 8, 1);
  m.add_f32("encoder.embeddings", {10, 8}, emb.data());
  // 16 x 8 int8, one scale per row.
  add_int8(m, "decoder.layers.0.ffn.in.weight", {16, 8}, fb::Quantization::PerRow, 0, {16}, 2);
  // 8 x 16 int8 in groups of 5: ceil(16 / 5) = 4 scales per row.
  add_int8(m, "decoder.layers.0.ffn.out.weight", {8, 16}, fb::Quantization::PerGroup, 5, {8, 4}, 3);
  // 3 x 5 int8 (15 bytes: the next tensor must still start 64-aligned), one scale.
  add_int8(m, "decoder.output.weight", {3, 5}, fb::Quantization::PerTensor, 0, {1}, 4);
  convert::NeutralTensor half;
  half.name = "encoder.norm.gamma";
  half.shape = {7};
  half.dtype = fb::DType::F16;
  half.bytes = pattern_bytes(14, 5);
  m.tensors.push_back(std::move(half));
  std::vector<float> bias = pattern_floats(3, 6);
  m.add_f32("decoder.output.bias", {3}, bias.data());
  return m;
}

fb::VocabMapT sample_vocab_map() {
  fb::VocabMapT map;
  map.max_ngram = 2;
  map.key_offsets = {0, 1, 3, 4};
  map.key_ids = {1, 1, 2, 3};
  map.target_offsets = {0, 2, 3, 5};
  map.target_ids = {4, 5, 6, 7, 8};
  map.always = {2};
  return map;
}

std::vector<uint8_t> sample_model_bytes() {
  std::vector<uint8_t> bytes;
  const Status s = convert::serialize_heed(make_sample_model(), &bytes);
  if (!s.is_ok()) throw std::runtime_error("serialize_heed failed on the sample model: " + s.message());
  return bytes;
}

}  // namespace heed::test
