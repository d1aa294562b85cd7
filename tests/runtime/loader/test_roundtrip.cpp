// A model written by serialize_heed and loaded back (mmap, read fallback, from_bytes) exposes
// exactly the tensors, bytes, scales and index fields the NeutralModel held, every tensor 64-byte
// aligned at the offset the file's own header says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <type_traits>
#include <cstring>

#include "heed/model.h"
#include "loader/model_index.h"
#include "heed_writer.h"
#include "sample_model.h"
#include "test_paths.h"

namespace heed::test {
namespace {

uint64_t align64(uint64_t n) { return (n + 63) / 64 * 64; }

std::string write_sample(const std::string& name) {
  const std::string path = temp_dir() + "/" + name;
  const Status s = convert::write_heed(make_sample_model(), path);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return path;
}

// Every tensor of the NeutralModel, compared with what the loader exposes.
void check_matches_source(const Model& model, const uint8_t* file_start) {
  const convert::NeutralModel source = make_sample_model();
  REQUIRE(file_tensors(model).size() == source.tensors.size());
  uint32_t index_size = 0;
  std::memcpy(&index_size, file_start, 4);
  const uint64_t segment = align64(4 + uint64_t{index_size});
  const auto& entries = *file_index(model).tensors();
  for (const auto& t : source.tensors) {
    INFO("tensor " << t.name);
    const TensorView* v = find_tensor(model, t.name);
    REQUIRE(v != nullptr);
    CHECK(v->name == t.name);
    CHECK(v->shape == t.shape);
    CHECK(v->dtype == t.dtype);
    CHECK(v->quantization == t.quantization);
    CHECK(v->group_size == t.group_size);
    CHECK(v->size_bytes == t.bytes.size());
    CHECK(v->num_elements() == t.num_elements());
    CHECK(std::memcmp(v->data, t.bytes.data(), t.bytes.size()) == 0);
    CHECK(reinterpret_cast<uintptr_t>(v->data) % kTensorAlignment == 0);
    const fb::Tensor* entry = entries.LookupByKey(t.name.c_str());
    REQUIRE(entry != nullptr);
    CHECK(entry->offset() % 64 == 0);
    CHECK(static_cast<const uint8_t*>(v->data) == file_start + segment + entry->offset());
    if (t.quantization == fb::Quantization::None) {
      CHECK(v->scales == nullptr);
      continue;
    }
    const convert::NeutralTensor* scales = source.find(t.scales);
    REQUIRE(scales != nullptr);
    CHECK(v->num_scales * sizeof(float) == scales->bytes.size());
    REQUIRE(v->scales != nullptr);
    CHECK(std::memcmp(v->scales, scales->bytes.data(), scales->bytes.size()) == 0);
  }
  // Tensors do not overlap: in offset order each ends before the next begins.
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const fb::Tensor* e : entries) spans.push_back({e->offset(), e->size()});
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i - 1].first + spans[i - 1].second <= spans[i].first);
  CHECK(segment + file_index(model).weights_size() == model.file_size());
}

}  // namespace

TEST_CASE("writer output layout: size prefix, identifier, 64-byte padded segment", "[loader][writer]") {
  const std::vector<uint8_t> bytes = sample_model_bytes();
  REQUIRE(bytes.size() > 12);
  uint32_t index_size = 0;
  std::memcpy(&index_size, bytes.data(), 4);
  CHECK(std::memcmp(bytes.data() + 8, "HEED", 4) == 0);
  CHECK(bytes.size() % 64 == 0);
  // Padding between the index and the weight segment is zeros.
  for (uint64_t i = 4 + uint64_t{index_size}; i < align64(4 + uint64_t{index_size}); ++i) CHECK(bytes[i] == 0);
  // The same model serializes to the same bytes.
  CHECK(sample_model_bytes() == bytes);
}

// Where the loaded file begins in memory, derived from the first tensor's view (the writer puts
// nothing after the weight segment, so the segment starts file_size - weights_size in).
static const uint8_t* loaded_file_start(const Model& model) {
  const auto* first = static_cast<const uint8_t*>(file_tensors(model)[0].data);
  return first - file_index(model).tensors()->Get(0)->offset() - (model.file_size() - file_index(model).weights_size());
}

TEST_CASE("round trip through a file with mmap and with the read fallback", "[loader]") {
  const std::string path = write_sample("sample.heed");
  const std::vector<uint8_t> bytes = sample_model_bytes();
  for (bool use_mmap : {true, false}) {
    INFO("use_mmap " << use_mmap);
    std::unique_ptr<Model> model;
    LoadOptions options;
    options.use_mmap = use_mmap;
    const Status s = Model::open(path, options, &model);
    INFO(s.message());
    REQUIRE(s.is_ok());
    CHECK(model->is_mapped() == use_mmap);
    REQUIRE(model->file_size() == bytes.size());
    const uint8_t* start = loaded_file_start(*model);
    CHECK(reinterpret_cast<uintptr_t>(start) % 64 == 0);
    CHECK(std::memcmp(start, bytes.data(), bytes.size()) == 0);
    check_matches_source(*model, start);
  }
}

TEST_CASE("from_bytes on aligned and misaligned memory", "[loader]") {
  const std::vector<uint8_t> bytes = sample_model_bytes();
  // One spare 64-byte block so the file can be placed at an aligned and at a misaligned address.
  std::vector<uint8_t> storage(bytes.size() + 128);
  uint8_t* aligned = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  for (size_t shift : {size_t{0}, size_t{1}, size_t{8}, size_t{33}}) {
    INFO("shift " << shift);
    uint8_t* at = aligned + shift;
    std::memcpy(at, bytes.data(), bytes.size());
    std::unique_ptr<Model> model;
    const Status s = Model::from_bytes(at, bytes.size(), &model);
    INFO(s.message());
    REQUIRE(s.is_ok());
    CHECK(!model->is_mapped());
    const uint8_t* start = loaded_file_start(*model);
    // Aligned memory is used in place; misaligned memory is copied to an aligned buffer.
    CHECK((start == at) == (shift == 0));
    CHECK(reinterpret_cast<uintptr_t>(start) % 64 == 0);
    CHECK(std::memcmp(start, bytes.data(), bytes.size()) == 0);
    check_matches_source(*model, start);
  }
}

TEST_CASE("index fields survive the round trip", "[loader]") {
  const std::vector<uint8_t> bytes = sample_model_bytes();
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
  const fb::Model& index = file_index(*model);
  CHECK(index.format_version() == kFormatVersionWithoutOutliers);  // no outlier channels: version 1
  REQUIRE(index.producer());
  CHECK(index.producer()->name()->str() == "heed convert");
  CHECK(index.producer()->source_format()->str() == "loader-test");
  REQUIRE(model_family(*model) == fb::ModelConfig::TransformerEncoderDecoder);
  const auto* config = index.config_as_TransformerEncoderDecoder();
  CHECK(config->encoder()->d_model() == 8);
  CHECK(config->decoder()->ffn_dim() == 16);
  CHECK(config->decoder()->vocab_size() == 10);
  // Metadata comes back sorted by key, so it can be searched by key.
  REQUIRE(index.metadata());
  REQUIRE(index.metadata()->size() == 3);
  CHECK(index.metadata()->Get(0)->key()->str() == "license");
  CHECK(index.metadata()->Get(2)->key()->str() == "target_language");
  const fb::KeyValue* lang = index.metadata()->LookupByKey("source_language");
  REQUIRE(lang);
  CHECK(lang->value()->str() == "ar");
  REQUIRE(index.tokenizer());
  CHECK(index.tokenizer()->eos_id() == 2);
  CHECK(index.tokenizer()->target_vocabulary()->tokens()->Get(9)->str() == "t9");
  CHECK(index.tokenizer()->source_vocabulary()->tokens()->Get(0)->str() == "s0");
  // Tensors in name order.
  for (size_t i = 1; i < file_tensors(*model).size(); ++i) CHECK(file_tensors(*model)[i - 1].name < file_tensors(*model)[i].name);
}

TEST_CASE("require names the missing tensor", "[loader]") {
  const std::vector<uint8_t> bytes = sample_model_bytes();
  std::unique_ptr<Model> model;
  REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
  const TensorView* v = nullptr;
  CHECK(require_tensor(*model, "encoder.embeddings", &v).is_ok());
  REQUIRE(v);
  CHECK(v->rows() == 10);
  CHECK(v->row_size() == 8);
  const Status s = require_tensor(*model, "decoder.embeddings", &v);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message() == "model is missing tensor 'decoder.embeddings'");
  CHECK(v == nullptr);
  CHECK(find_tensor(*model, "nope") == nullptr);
}

TEST_CASE("open reports operating-system errors with the path", "[loader]") {
  std::unique_ptr<Model> model;
  const std::string missing = temp_dir() + "/missing.heed";
  Status s = Model::open(missing, LoadOptions{}, &model);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == missing + ": cannot open: No such file or directory");
  CHECK(model == nullptr);
  const std::string dir = temp_dir();
  s = Model::open(dir, LoadOptions{}, &model);
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message() == dir + ": not a regular file");
}

TEST_CASE("dtype names and sizes", "[loader]") {
  CHECK(std::string(dtype_name(fb::DType::F32)) == "F32");
  CHECK(std::string(dtype_name(fb::DType::I8)) == "I8");
  CHECK(std::string(dtype_name(static_cast<fb::DType>(77))) == "unknown");
  CHECK(dtype_size(fb::DType::F32) == 4);
  CHECK(dtype_size(fb::DType::F16) == 2);
  CHECK(dtype_size(fb::DType::I8) == 1);
  CHECK(dtype_size(fb::DType::I32) == 4);
  CHECK(std::string(status_code_name(StatusCode::kUnsupportedVersion)) == "unsupported_version");
}

}  // namespace heed::test

namespace heed::test {

TEST_CASE("other families: decoder-only with grouped-query RoPE attention, RNN seq2seq", "[loader]") {
  auto vocabulary = [](int n) {
    auto v = std::make_unique<fb::VocabularyT>();
    for (int i = 0; i < n; ++i) v->tokens.push_back("w" + std::to_string(i));
    return v;
  };
  std::vector<float> emb(6 * 16, 0.5f);
  {
    convert::NeutralModel m;
    fb::TransformerDecoderOnlyT config;
    config.decoder = std::make_unique<fb::TransformerStackT>();
    auto& s = *config.decoder;
    s.num_layers = 1;
    s.d_model = 16;
    s.num_heads = 4;
    s.num_kv_heads = 2;
    s.ffn_dim = 32;
    s.vocab_size = 6;
    s.position_encoding = fb::PositionEncoding::RoPE;
    s.norm = fb::NormKind::RMSNorm;
    m.config.Set(std::move(config));
    m.tokenizer.kind = fb::TokenizerKind::ByteBPE;
    m.tokenizer.target_vocabulary = vocabulary(6);
    m.tokenizer.target_vocabulary->scores.assign(6, 0.0f);
    m.tokenizer.bos_id = 1;
    m.add_f32("decoder.embeddings", {6, 16}, emb.data());
    std::vector<uint8_t> bytes;
    Status s1 = convert::serialize_heed(m, &bytes);
    INFO(s1.message());
    REQUIRE(s1.is_ok());
    std::unique_ptr<Model> model;
    REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
    CHECK(model_family(*model) == fb::ModelConfig::TransformerDecoderOnly);
    CHECK(file_index(*model).config_as_TransformerDecoderOnly()->decoder()->num_kv_heads() == 2);

    m.tokenizer.target_vocabulary->scores.pop_back();
    CHECK(convert::serialize_heed(m, &bytes).message() ==
          "the model is inconsistent: tokenizer: target vocabulary has 6 tokens but 5 scores");
    m.tokenizer.target_vocabulary->scores.push_back(0.0f);
    m.config.AsTransformerDecoderOnly()->decoder->head_dim = 3;  // RoPE rotates pairs
    CHECK(convert::serialize_heed(m, &bytes).message() ==
          "the model is inconsistent: decoder: RoPE needs an even head_dim, not 3");
  }
  {
    convert::NeutralModel m;
    fb::RnnSeq2SeqT config;
    config.source_vocab_size = 5;
    config.target_vocab_size = 6;
    config.embedding_dim = 16;
    config.hidden_dim = 8;
    m.config.Set(std::move(config));
    m.tokenizer.source_vocabulary = vocabulary(5);
    m.tokenizer.target_vocabulary = vocabulary(6);
    m.tokenizer.eos_id = 5;
    m.add_f32("decoder.embeddings", {6, 16}, emb.data());
    std::vector<uint8_t> bytes;
    REQUIRE(convert::serialize_heed(m, &bytes).is_ok());
    std::unique_ptr<Model> model;
    REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &model).is_ok());
    CHECK(model_family(*model) == fb::ModelConfig::RnnSeq2Seq);
    m.tokenizer.source_vocabulary = vocabulary(4);
    CHECK(convert::serialize_heed(m, &bytes).message() ==
          "the model is inconsistent: tokenizer: source vocabulary has 4 tokens but the model's vocab_size is 5");
    m.tokenizer.source_vocabulary = vocabulary(5);
    m.config.AsRnnSeq2Seq()->hidden_dim = 0;
    CHECK(convert::serialize_heed(m, &bytes).message() == "the model is inconsistent: rnn: hidden_dim 0 is invalid");
  }
}

TEST_CASE("from_bytes refuses a null pointer", "[loader]") {
  std::unique_ptr<Model> model;
  const Status s = Model::from_bytes(nullptr, 100, &model);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(model == nullptr);
}

}  // namespace heed::test

namespace {
// Whether `Status::ok()` can be called without an object (the old static factory, which read as a
// check that never failed when called on an object).
template <typename S, typename = void>
struct has_static_ok : std::false_type {};
template <typename S>
struct has_static_ok<S, std::void_t<decltype(S::ok())>> : std::true_type {};
}  // namespace

TEST_CASE("Status: `if (!s.ok())` reports a failed open", "[loader][status]") {
  static_assert(!has_static_ok<heed::Status>::value, "ok() is the check, not a factory");
  std::unique_ptr<heed::Model> model;
  const heed::Status s = heed::Model::open("/nonexistent/heed/model.heed", heed::LoadOptions{}, &model);
  bool reported = false;
  if (!s.ok()) reported = true;
  CHECK(reported);
  CHECK(s.code() == heed::StatusCode::kIoError);
  CHECK_FALSE(s.message().empty());
  CHECK(heed::Status::success().ok());
}
