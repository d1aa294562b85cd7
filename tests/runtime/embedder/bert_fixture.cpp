#include "bert_fixture.h"

#include <fstream>
#include <functional>
#include <map>

#include <catch2/catch.hpp>

#include "heed_writer.h"
#include "hf_bert/reader.h"
#include "convert.h"
#include "test_paths.h"

namespace heed::test {

std::string bert_heed(convert::WeightType type, std::optional<uint32_t> activation_block) {
  return bert_folder_heed("model", type, activation_block);
}

namespace {

// The folder converted as `heed convert` does, after edit(model) when given; cached by `name`.
std::string convert_folder(const std::string& folder, const std::string& name, convert::WeightType type,
                           std::optional<uint32_t> activation_block,
                           const std::function<void(convert::NeutralModel*)>& edit) {
  static std::map<std::string, std::string> cache;
  const auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  convert::NeutralModel model;
  Status s = convert::hf_bert::read_model(source_path("tests/fixtures/hf-bert/" + folder), &model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  if (edit) edit(&model);
  convert::ConvertOptions options;
  options.quantize.type = type;
  options.activation_block = activation_block;
  convert::ConvertSummary summary;
  s = convert::quantize_and_pack(&model, options, &summary);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const std::string out = temp_dir() + "/" + name + ".heed";
  s = convert::write_heed(model, out);
  INFO(s.message());
  REQUIRE(s.is_ok());
  cache[name] = out;
  return out;
}

}  // namespace

std::string bert_folder_heed(const std::string& folder, convert::WeightType type,
                             std::optional<uint32_t> activation_block) {
  const std::string name = "bert_" + folder + "_" + convert::weight_type_name(type) +
                           (activation_block ? "_blocks" + std::to_string(*activation_block) : "");
  return convert_folder(folder, name, type, activation_block, nullptr);
}

std::string bert_relative_bias_heed(convert::WeightType type, const RelativeBiasShape& shape) {
  const auto add_bias = [&shape](convert::NeutralModel* model) {
    auto* config = model->config.AsTransformerEncoderOnly();
    REQUIRE(config != nullptr);
    config->relative_attention_buckets = shape.buckets;
    config->relative_attention_max_distance = shape.max_distance;
    const uint32_t heads = config->encoder->num_heads;
    std::vector<float> bias(shape.buckets * heads, 0.5f);
    for (size_t i = 0; i < bias.size() && !shape.constant; ++i) bias[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
    if (!shape.without_table) model->add_f32("encoder.relative_attention_bias", {shape.buckets, heads}, bias.data());
  };
  return convert_folder("model", "bert_relative_bias_" + shape.tag + "_" + convert::weight_type_name(type), type,
                        std::nullopt, add_bias);
}

namespace {
nlohmann::json read_json(const std::string& name) {
  std::ifstream in(source_path("tests/fixtures/hf-bert/" + name));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}
}  // namespace

const nlohmann::json& bert_reference() {
  static const nlohmann::json j = read_json("reference.json");
  return j;
}

const nlohmann::json& heads_reference() {
  static const nlohmann::json j = read_json("heads.json");
  return j;
}

std::unique_ptr<Embedder> open_embedder(const std::string& path, size_t max_batch, size_t threads) {
  return open_task<Embedder>(path, max_batch, threads);
}

UniformBatch::UniformBatch(size_t sentences, size_t length) : ids(sentences * length), offsets(sentences + 1) {
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(5 + (i * 7919) % 900);
  for (size_t i = 0; i <= sentences; ++i) offsets[i] = i * length;
}

}  // namespace heed::test
