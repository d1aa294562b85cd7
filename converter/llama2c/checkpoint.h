// llama2.c checkpoints (Karpathy's llama2.c run.c / export.py): the header and where each weight
// array lies in the file. Two layouts:
//   legacy (version 0): 7 int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
//     seq_len; a negative vocab_size means the classifier is NOT shared with the embeddings),
//     then f32 arrays: embeddings, attention norms, wq, wk, wv, wo, ffn norms, w1, w2, w3, final
//     norm, two unused RoPE tables [seq_len, head_size / 2], and the classifier when unshared.
//   version 1: 256-byte header: uint32 magic "ak42" (0x616b3432), int32 version 1, the same 7
//     int32, uint8 shared_classifier, zero padding; then f32 arrays: attention norms, ffn norms,
//     final norm, embeddings, wq, wk, wv, wo, w1, w2, w3, and the classifier when unshared.
// Arrays of per-layer weights hold every layer's matrix one after the other, each row-major
// [out, in] (PyTorch Linear layout).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert::llama2c {

struct CheckpointConfig {
  int version = 0;  // 0: legacy header, 1: "ak42" version 1
  uint32_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0, vocab_size = 0, seq_len = 0;
  bool shared_classifier = true;
  uint32_t head_size() const { return dim / n_heads; }
  uint32_t kv_dim() const { return n_kv_heads * head_size(); }
};

// Byte offsets of each f32 array in the file (per-layer arrays: the first layer's start).
struct CheckpointLayout {
  uint64_t embeddings = 0, attention_norms = 0, wq = 0, wk = 0, wv = 0, wo = 0, ffn_norms = 0;
  uint64_t w1 = 0, w2 = 0, w3 = 0, final_norm = 0, classifier = 0;  // classifier: unshared only
  uint64_t file_size = 0;  // what the header implies
};

// Parses and checks the header at `bytes` (the start of the file; `size` the file size) and
// computes the layout. Errors name `where` and the problem (bad header, unsupported version,
// size mismatch).
Status parse_checkpoint(const uint8_t* bytes, size_t size, const std::string& where, CheckpointConfig* config,
                        CheckpointLayout* layout);

// True when the bytes look like a llama2.c checkpoint (a plausible header whose implied size
// equals `size`).
bool looks_like_checkpoint(const uint8_t* bytes, size_t size);

}  // namespace heed::convert::llama2c
