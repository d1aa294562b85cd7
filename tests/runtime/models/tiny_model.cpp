#include "tiny_model.h"

#include <cmath>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "heed_format/tensor_names.h"
#include "heed_writer.h"
#include "loader/model_index.h"

namespace heed::test {

namespace {

struct Builder {
  convert::NeutralModel* model;
  std::mt19937 rng;

  void add(const std::string& name, std::vector<uint32_t> shape, float scale, float offset, bool quantizable) {
    size_t n = 1;
    for (uint32_t d : shape) n *= d;
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) x = offset + dist(rng);
    convert::NeutralTensor& t = model->add_f32(name, std::move(shape), v.data());
    t.quantizable = quantizable;
  }
  void matrix(const std::string& prefix, uint32_t out, uint32_t in) {
    add(prefix + ".weight", {out, in}, 1.5f / std::sqrt(static_cast<float>(in)), 0.0f, true);
    add(prefix + ".bias", {out}, 0.1f, 0.0f, false);
  }
  void norm(const std::string& prefix, uint32_t d) {
    add(prefix + ".gamma", {d}, 0.2f, 1.0f, false);
    add(prefix + ".beta", {d}, 0.1f, 0.0f, false);
  }
};

std::unique_ptr<fb::TransformerStackT> stack(const TinyOptions& o, uint32_t layers, uint32_t vocab) {
  auto s = std::make_unique<fb::TransformerStackT>();
  s->num_layers = layers;
  s->d_model = o.d_model;
  s->num_heads = o.num_heads;
  s->num_kv_heads = o.num_kv_heads;
  s->ffn_dim = o.ffn_dim;
  s->activation = o.activation;
  s->gated_ffn = o.gated_ffn;
  s->norm_epsilon = o.norm_epsilon;
  s->pre_norm = o.pre_norm;
  s->final_norm = o.final_norm;
  s->embedding_norm = o.embedding_norm;
  s->position_encoding = o.positions;
  s->max_positions = o.max_positions;
  s->embedding_scale = o.embedding_scale;
  s->vocab_size = vocab;
  return s;
}

}  // namespace

convert::NeutralModel make_tiny_model(const TinyOptions& o) {
  convert::NeutralModel m;
  fb::TransformerEncoderDecoderT cfg;
  cfg.encoder = stack(o, o.encoder_layers, o.shared_embeddings ? o.target_vocab : o.source_vocab);
  cfg.decoder = stack(o, o.decoder_layers, o.target_vocab);
  cfg.shared_embeddings = o.shared_embeddings;
  cfg.tied_output = o.tied_output;
  m.config.Set(std::move(cfg));
  m.tokenizer.kind = fb::TokenizerKind::Whitespace;
  m.tokenizer.bos_id = 1;
  m.tokenizer.eos_id = 2;
  m.producer.name = "heed tests";

  Builder b{&m, std::mt19937(o.seed)};
  const uint32_t d = o.d_model, hd = d / o.num_heads;
  const uint32_t kvh = o.num_kv_heads == 0 ? o.num_heads : o.num_kv_heads;
  for (const char* name : {"encoder", "decoder"}) {
    const std::string p = name;
    const bool dec = p == "decoder";
    const uint32_t vocab = dec || o.shared_embeddings ? o.target_vocab : o.source_vocab;
    if (dec || !o.shared_embeddings) b.add(p + ".embeddings", {vocab, d}, 0.3f, 0.0f, true);
    if (o.positions == fb::PositionEncoding::Learned) b.add(p + ".positions", {o.max_positions, d}, 0.3f, 0.0f, false);
    if (o.embedding_norm) b.norm(p + ".embedding_norm", d);
    const uint32_t layers = dec ? o.decoder_layers : o.encoder_layers;
    for (uint32_t i = 0; i < layers; ++i) {
      const std::string l = names::layer(p, static_cast<int>(i));
      b.norm(l + ".self_attn.norm", d);
      b.matrix(l + ".self_attn.qkv", (o.num_heads + 2 * kvh) * hd, d);
      b.matrix(l + ".self_attn.out", d, o.num_heads * hd);
      if (dec) {
        b.norm(l + ".cross_attn.norm", d);
        b.matrix(l + ".cross_attn.q", o.num_heads * hd, d);
        b.matrix(l + ".cross_attn.kv", 2 * o.num_heads * hd, d);
        b.matrix(l + ".cross_attn.out", d, o.num_heads * hd);
      }
      b.norm(l + ".ffn.norm", d);
      b.matrix(l + ".ffn.in", o.ffn_dim, d);
      if (o.gated_ffn) b.matrix(l + ".ffn.gate", o.ffn_dim, d);
      b.matrix(l + ".ffn.out", d, o.ffn_dim);
    }
    if (o.final_norm) b.norm(p + ".norm", d);
  }
  if (!o.tied_output) b.matrix("decoder.output", o.target_vocab, d);
  if (o.quantize) {
    const Status s = convert::quantize_model(&m, o.quantize_options, nullptr);
    INFO(s.message());
    REQUIRE(s.is_ok());
  }
  return m;
}

LoadedModel load_model(const convert::NeutralModel& neutral) {
  LoadedModel out;
  Status s = convert::serialize_heed(neutral, &out.bytes);
  INFO(s.message());
  REQUIRE(s.is_ok());
  s = Model::from_bytes(out.bytes.data(), out.bytes.size(), &out.model);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return out;
}

}  // namespace heed::test
