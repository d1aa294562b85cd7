#include "llama2c/checkpoint.h"

#include <cstring>
#include <utility>

namespace heed::convert::llama2c {

namespace {

constexpr uint32_t kMagic = 0x616b3432;  // "ak42"
constexpr size_t kLegacyHeader = 7 * 4;
constexpr size_t kVersion1Header = 256;
constexpr uint32_t kMaxDim = 1u << 20;

int32_t read_i32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Reads the 7 hyperparameters at p; the sign of vocab_size is the legacy "unshared" flag.
Status read_params(const uint8_t* p, const std::string& where, bool legacy, CheckpointConfig* c) {
  const int32_t dim = read_i32(p), hidden = read_i32(p + 4), layers = read_i32(p + 8), heads = read_i32(p + 12),
                kv_heads = read_i32(p + 16), vocab = read_i32(p + 20), seq_len = read_i32(p + 24);
  const auto in_range = [](int64_t v) { return v > 0 && v <= kMaxDim; };
  const int64_t abs_vocab = vocab < 0 ? -static_cast<int64_t>(vocab) : vocab;
  if (!in_range(dim) || !in_range(hidden) || !in_range(layers) || !in_range(heads) || !in_range(kv_heads) ||
      !in_range(abs_vocab) || !in_range(seq_len) || (!legacy && vocab < 0)) {
    return invalid_file(where + ": not a llama2.c checkpoint (header dim " + std::to_string(dim) + ", hidden_dim " +
                        std::to_string(hidden) + ", n_layers " + std::to_string(layers) + ", n_heads " +
                        std::to_string(heads) + ", n_kv_heads " + std::to_string(kv_heads) + ", vocab_size " +
                        std::to_string(vocab) + ", seq_len " + std::to_string(seq_len) + ")");
  }
  if (dim % heads != 0 || heads % kv_heads != 0 || (dim / heads) % 2 != 0) {
    return invalid_file(where + ": inconsistent llama2.c header: dim " + std::to_string(dim) + " must be a multiple of n_heads " +
                        std::to_string(heads) + " with an even head size, and n_kv_heads " + std::to_string(kv_heads) +
                        " must divide n_heads");
  }
  c->dim = static_cast<uint32_t>(dim);
  c->hidden_dim = static_cast<uint32_t>(hidden);
  c->n_layers = static_cast<uint32_t>(layers);
  c->n_heads = static_cast<uint32_t>(heads);
  c->n_kv_heads = static_cast<uint32_t>(kv_heads);
  c->vocab_size = static_cast<uint32_t>(abs_vocab);
  c->seq_len = static_cast<uint32_t>(seq_len);
  if (legacy) c->shared_classifier = vocab > 0;
  return Status::success();
}

}  // namespace

Status parse_checkpoint(const uint8_t* bytes, size_t size, const std::string& where, CheckpointConfig* config,
                        CheckpointLayout* layout) {
  CheckpointConfig c;
  uint64_t offset = 0;
  if (size >= 8 && static_cast<uint32_t>(read_i32(bytes)) == kMagic) {
    c.version = read_i32(bytes + 4);
    if (c.version != 1) {
      return unsupported_model(where + ": llama2.c checkpoint version " + std::to_string(c.version) +
                               " is not supported (heed reads the legacy format and version 1, float32)");
    }
    if (size < kVersion1Header) return invalid_file(where + ": truncated llama2.c header");
    HEED_RETURN_IF_ERROR(read_params(bytes + 8, where, false, &c));
    if (bytes[36] > 1) return invalid_file(where + ": shared_classifier flag is " + std::to_string(bytes[36]));
    c.shared_classifier = bytes[36] == 1;
    offset = kVersion1Header;
  } else {
    if (size < kLegacyHeader) return invalid_file(where + ": too small for a llama2.c checkpoint");
    HEED_RETURN_IF_ERROR(read_params(bytes, where, true, &c));
    offset = kLegacyHeader;
  }

  // Sizes in bytes; 64-bit, and every factor is at most 2^20, so no product overflows.
  const uint64_t L = c.n_layers, d = c.dim, f = c.hidden_dim, V = c.vocab_size, kv = c.kv_dim();
  const uint64_t q = uint64_t{c.n_heads} * c.head_size();
  const uint64_t emb = V * d * 4, norms = L * d * 4, wq = L * q * d * 4, wkv = L * kv * d * 4, wo = L * d * q * 4;
  const uint64_t ffn = L * f * d * 4, final_norm = d * 4;
  CheckpointLayout l;
  const auto take = [&](uint64_t* at, uint64_t bytes_of) {
    *at = offset;
    offset += bytes_of;
  };
  // The two layouts store the same parts in different orders (version 0 also has RoPE tables,
  // which heed recomputes, after the final norm).
  using Part = std::pair<uint64_t*, uint64_t>;
  if (c.version == 0) {
    for (const Part& p : {Part{&l.embeddings, emb}, Part{&l.attention_norms, norms}, Part{&l.wq, wq}, Part{&l.wk, wkv},
                          Part{&l.wv, wkv}, Part{&l.wo, wo}, Part{&l.ffn_norms, norms}, Part{&l.w1, ffn},
                          Part{&l.w2, ffn}, Part{&l.w3, ffn}, Part{&l.final_norm, final_norm}}) {
      take(p.first, p.second);
    }
    offset += 2 * uint64_t{c.seq_len} * (c.head_size() / 2) * 4;
  } else {
    for (const Part& p : {Part{&l.attention_norms, norms}, Part{&l.ffn_norms, norms}, Part{&l.final_norm, final_norm},
                          Part{&l.embeddings, emb}, Part{&l.wq, wq}, Part{&l.wk, wkv}, Part{&l.wv, wkv},
                          Part{&l.wo, wo}, Part{&l.w1, ffn}, Part{&l.w2, ffn}, Part{&l.w3, ffn}}) {
      take(p.first, p.second);
    }
  }
  if (!c.shared_classifier) take(&l.classifier, emb);
  l.file_size = offset;
  if (l.file_size != size) {
    return invalid_file(where + ": llama2.c checkpoint is " + std::to_string(size) + " bytes but its header (dim " +
                        std::to_string(c.dim) + ", " + std::to_string(c.n_layers) + " layers, vocabulary " +
                        std::to_string(c.vocab_size) + (c.shared_classifier ? ", shared" : ", unshared") +
                        " classifier) implies " + std::to_string(l.file_size) + " bytes");
  }
  *config = c;
  *layout = l;
  return Status::success();
}

bool looks_like_checkpoint(const uint8_t* bytes, size_t size) {
  CheckpointConfig c;
  CheckpointLayout l;
  return parse_checkpoint(bytes, size, "", &c, &l).is_ok();
}

}  // namespace heed::convert::llama2c
