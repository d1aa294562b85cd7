#include "hf_bert/mpnet.h"

#include "hf_causal_lm/config.h"
#include "source_files.h"

namespace heed::convert::hf_bert {

namespace {
// What MPNetEncoder.compute_position_bias always buckets with.
constexpr uint32_t kTransformersBuckets = 32, kTransformersMaxDistance = 128;
}  // namespace

bool is_mpnet_type(const std::string& model_type) { return model_type == "mpnet"; }

bool looks_like_mpnet(const std::string& dir) {
  return (is_file(dir + "/vocab.txt") || is_file(dir + "/tokenizer.json")) &&
         is_mpnet_type(hf_causal_lm::model_type_of(dir));
}

Status read_mpnet_config(const nlohmann::json& config, const std::string& path, uint32_t* buckets,
                         uint32_t* max_distance) {
  const auto n = config.find("relative_attention_num_buckets");
  if (n != config.end() && !(n->is_number_unsigned() && n->get<uint64_t>() == kTransformersBuckets)) {
    return unsupported_model(path + ": relative_attention_num_buckets " + n->dump() +
                             " is not supported (transformers' MPNet buckets relative positions into 32 whatever "
                             "the config says; heed runs 32)");
  }
  const auto arch = config.find("architectures");
  if (arch != config.end() && arch->is_array() && !arch->empty() && (*arch)[0].is_string()) {
    const std::string name = (*arch)[0].get<std::string>();
    if (name != "MPNetModel" && name != "MPNetForMaskedLM") {
      return unsupported_model(path + ": architecture " + name +
                               " is not supported (heed runs MPNet encoders for embeddings: MPNetModel, or "
                               "MPNetForMaskedLM without its head)");
    }
  }
  *buckets = kTransformersBuckets;
  *max_distance = kTransformersMaxDistance;
  return Status::success();
}

Status take_relative_attention_bias(TensorMapper& m, uint32_t buckets, uint32_t heads) {
  return m.take("encoder.relative_attention_bias.weight", "encoder.relative_attention_bias", {buckets, heads}, false);
}

}  // namespace heed::convert::hf_bert
