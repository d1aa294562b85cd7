#include "llama2c/reader.h"

#include <cstring>
#include <dirent.h>
#include <fstream>
#include <memory>
#include <sys/stat.h>
#include <vector>

#include "heed_format/tensor_names.h"
#include "llama2c/checkpoint.h"
#include "llama2c/tokenizer_bin.h"
#include "source_files.h"

#ifndef HEED_VERSION
#define HEED_VERSION "unknown"
#endif

namespace heed::convert::llama2c {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// The first bytes of a file (enough for either header) and its size.
bool peek(const std::string& path, std::vector<uint8_t>* head, size_t* size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  head->assign(256, 0);
  in.read(reinterpret_cast<char*>(head->data()), 256);
  head->resize(static_cast<size_t>(in.gcount()));
  *size = static_cast<size_t>(st.st_size);
  return true;
}

// A header check only (the checkpoint's size must match; the weights are not read).
bool is_checkpoint_file(const std::string& path) {
  std::vector<uint8_t> head;
  size_t size = 0;
  if (!peek(path, &head, &size) || head.size() < 28) return false;
  CheckpointConfig c;
  CheckpointLayout l;
  // parse_checkpoint reads at most the first 256 bytes; give it the real size for the check.
  std::vector<uint8_t> padded = head;
  padded.resize(256, 0);
  return parse_checkpoint(padded.data(), size, path, &c, &l).is_ok() && (c.version == 0 || head.size() >= 256);
}

std::vector<std::string> bin_files(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".bin") == 0) files.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  return files;
}

Status find_checkpoint(const std::string& path, std::string* checkpoint) {
  if (!is_directory(path)) {
    if (!is_file(path)) return io_error("'" + path + "' does not exist");
    *checkpoint = path;
    return Status::success();
  }
  std::vector<std::string> found;
  for (const std::string& f : bin_files(path)) {
    if (is_checkpoint_file(f)) found.push_back(f);
  }
  if (found.size() != 1) {
    return invalid_argument("'" + path + "' holds " + std::to_string(found.size()) +
                            " llama2.c checkpoints; give the checkpoint file itself");
  }
  *checkpoint = found[0];
  return Status::success();
}

// A per-layer f32 array slice as a tensor.
class TensorBuilder {
 public:
  TensorBuilder(const std::vector<uint8_t>& file, NeutralModel* out) : file_(file), out_(out) {}

  // Concatenates `parts` (byte offset, float count) into one tensor of `shape`.
  void add(const std::string& name, std::vector<uint32_t> shape, bool quantizable,
           std::initializer_list<std::pair<uint64_t, uint64_t>> parts) {
    NeutralTensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.quantizable = quantizable;
    for (const auto& [offset, count] : parts) {
      t.bytes.insert(t.bytes.end(), file_.begin() + static_cast<std::ptrdiff_t>(offset),
                     file_.begin() + static_cast<std::ptrdiff_t>(offset + count * 4));
    }
    out_->tensors.push_back(std::move(t));
  }

 private:
  const std::vector<uint8_t>& file_;
  NeutralModel* out_;
};

}  // namespace

bool looks_like_model(const std::string& path) {
  if (is_directory(path)) {
    if (is_file(path + "/model.bin")) return false;  // a CTranslate2 folder
    size_t n = 0;
    for (const std::string& f : bin_files(path)) n += is_checkpoint_file(f) ? 1 : 0;
    return n == 1;
  }
  return is_checkpoint_file(path);
}

namespace {

// The tokenizer beside the checkpoint: tok<VOCAB>.bin, else tokenizer.bin.
Status find_tokenizer(const std::string& checkpoint, uint32_t vocab_size, std::string* path) {
  const std::string dir = directory_of(checkpoint);
  for (const std::string& name : {"tok" + std::to_string(vocab_size) + ".bin", std::string("tokenizer.bin")}) {
    if (is_file(dir + "/" + name)) {
      *path = dir + "/" + name;
      return Status::success();
    }
  }
  return invalid_argument(checkpoint + ": no llama2.c tokenizer beside it (looked for tok" +
                          std::to_string(vocab_size) + ".bin and tokenizer.bin in " + dir + ")");
}

void add_tensors(TensorBuilder& b, const CheckpointConfig& c, const CheckpointLayout& l) {
  const uint32_t d = c.dim, f = c.hidden_dim, V = c.vocab_size, q = c.n_heads * c.head_size(), kv = c.kv_dim();
  b.add("decoder.embeddings", {V, d}, true, {{l.embeddings, uint64_t{V} * d}});
  for (uint32_t i = 0; i < c.n_layers; ++i) {
    const std::string p = names::layer("decoder", static_cast<int>(i));
    const uint64_t qd = uint64_t{q} * d * 4, kvd = uint64_t{kv} * d * 4, fd = uint64_t{f} * d * 4;
    b.add(p + ".self_attn.norm.gamma", {d}, false, {{l.attention_norms + uint64_t{i} * d * 4, d}});
    b.add(p + ".self_attn.qkv.weight", {q + 2 * kv, d}, true,
          {{l.wq + i * qd, uint64_t{q} * d}, {l.wk + i * kvd, uint64_t{kv} * d}, {l.wv + i * kvd, uint64_t{kv} * d}});
    b.add(p + ".self_attn.out.weight", {d, q}, true, {{l.wo + i * qd, uint64_t{d} * q}});
    b.add(p + ".ffn.norm.gamma", {d}, false, {{l.ffn_norms + uint64_t{i} * d * 4, d}});
    b.add(p + ".ffn.in.weight", {f, d}, true, {{l.w1 + i * fd, uint64_t{f} * d}});
    b.add(p + ".ffn.gate.weight", {f, d}, true, {{l.w3 + i * fd, uint64_t{f} * d}});
    b.add(p + ".ffn.out.weight", {d, f}, true, {{l.w2 + i * fd, uint64_t{d} * f}});
  }
  b.add("decoder.norm.gamma", {d}, false, {{l.final_norm, d}});
  if (!c.shared_classifier) b.add("decoder.output.weight", {V, d}, true, {{l.classifier, uint64_t{V} * d}});
}

void set_config(const CheckpointConfig& c, NeutralModel* model) {
  const uint32_t d = c.dim, f = c.hidden_dim, V = c.vocab_size;
  auto stack = std::make_unique<fb::TransformerStackT>();
  stack->num_layers = c.n_layers;
  stack->d_model = d;
  stack->num_heads = c.n_heads;
  stack->num_kv_heads = c.n_kv_heads;
  stack->head_dim = c.head_size();
  stack->ffn_dim = f;
  stack->activation = fb::Activation::SiLU;
  stack->gated_ffn = true;
  stack->norm = fb::NormKind::RMSNorm;
  stack->norm_epsilon = 1e-5f;
  stack->pre_norm = true;
  stack->final_norm = true;
  stack->embedding_norm = false;
  stack->position_encoding = fb::PositionEncoding::RoPE;
  stack->max_positions = c.seq_len;
  stack->rope_theta = 10000.0f;
  stack->embedding_scale = 1.0f;
  stack->vocab_size = V;
  fb::TransformerDecoderOnlyT config;
  config.decoder = std::move(stack);
  config.tied_output = c.shared_classifier;
  model->config.Set(std::move(config));

}

}  // namespace

Status read_model(const std::string& path, NeutralModel* out) {
  std::string checkpoint;
  HEED_RETURN_IF_ERROR(find_checkpoint(path, &checkpoint));
  std::vector<uint8_t> file;
  HEED_RETURN_IF_ERROR(read_bytes(checkpoint, &file, kMaxWeightFileBytes));
  CheckpointConfig c;
  CheckpointLayout l;
  HEED_RETURN_IF_ERROR(parse_checkpoint(file.data(), file.size(), checkpoint, &c, &l));
  std::string tokenizer_path;
  HEED_RETURN_IF_ERROR(find_tokenizer(checkpoint, c.vocab_size, &tokenizer_path));
  TokenizerBin tokenizer;
  HEED_RETURN_IF_ERROR(read_tokenizer_bin(tokenizer_path, c.vocab_size, &tokenizer));

  NeutralModel model;
  const uint32_t V = c.vocab_size;
  TensorBuilder b(file, &model);
  add_tensors(b, c, l);
  set_config(c, &model);
  fb::TokenizerT& tok = model.tokenizer;
  tok.kind = fb::TokenizerKind::ByteBPE;
  tok.target_vocabulary = std::make_unique<fb::VocabularyT>();
  tok.target_vocabulary->tokens = std::move(tokenizer.tokens);
  tok.target_vocabulary->scores = std::move(tokenizer.scores);
  tok.unk_id = V > 0 ? 0 : -1;
  tok.bos_id = V > 1 ? 1 : -1;
  tok.eos_id = tok.bos_id;  // see reader.h: llama2.c models end a document with BOS
  if (tok.bos_id < 0) return invalid_file(checkpoint + ": a llama2.c vocabulary needs at least <unk> and <s>");

  model.set_producer("llama2c", base_name(checkpoint));
  model.metadata.emplace_back("llama2c.version", std::to_string(c.version));
  model.metadata.emplace_back("llama2c.seq_len", std::to_string(c.seq_len));
  model.metadata.emplace_back("llama2c.tokenizer", base_name(tokenizer_path));
  model.metadata.emplace_back("llama2c.max_token_length", std::to_string(tokenizer.max_token_length));
  *out = std::move(model);
  return Status::success();
}

}  // namespace heed::convert::llama2c
