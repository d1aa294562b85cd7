// `heed convert --from llama2c`: a llama2.c checkpoint (legacy or version 1 float32, see
// checkpoint.h) and its tokenizer.bin as a NeutralModel: a decoder-only Transformer with RMSNorm
// (epsilon 1e-5), SwiGLU feed-forward (ffn.in = w1, ffn.gate = w3, ffn.out = w2), RoPE on
// interleaved pairs (theta 10000, max_positions = the checkpoint's seq_len) and grouped-query
// attention, and a ByteBPE tokenizer (vocabulary + merge scores).
//
// SOURCE is the checkpoint file, or a folder holding exactly one checkpoint. The tokenizer is
// looked up beside the checkpoint: tok<VOCAB>.bin (llama2.c's name for custom vocabularies, e.g.
// tok512.bin), then tokenizer.bin.
//
// Special ids: unk 0, bos 1. llama2.c models separate documents with BOS and never emit </s>
// (llama2.c's generator stops when it samples BOS), so the file's end-of-generation id (eos_id)
// is 1 as well.
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::llama2c {

// True when `path` is a llama2.c checkpoint file, or a folder holding one.
bool looks_like_model(const std::string& path);

Status read_model(const std::string& path, NeutralModel* out);

}  // namespace heed::convert::llama2c
