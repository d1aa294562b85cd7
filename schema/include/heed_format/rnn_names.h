// Tensor names of the RNN seq2seq family (RnnSeq2Seq in schema/heed.fbs): the one place the
// converter (which writes them) and the runtime (which requires them) agree on.
//
// E = embedding_dim, H = hidden_dim, He = H / 2 with a bidirectional encoder (each direction's
// states are concatenated forward then backward) else H, G = 4 (LSTM gates i, f, g, o) or 3 (GRU
// gates r, z, n), A = attention_dim, Vs / Vt = source / target vocabulary sizes:
//   encoder.embeddings                                   [Vs, E]
//   encoder.layers.{i}.{fw|bw}.{ih,hh}.weight            [G He, in_i], [G He, He]
//   encoder.layers.{i}.{fw|bw}.{ih,hh}.bias              [G He]      (bw: bidirectional only)
//       in_0 = E, in_i = H
//   decoder.embeddings                                   [Vt, E]
//   decoder.layers.{i}.{ih,hh}.{weight,bias}             [G H, in_i], [G H, H], [G H]
//       in_0 = E + H with input feeding ([y; htilde_{t-1}]) or Bahdanau placement ([y; c_t]), else E
//   decoder.attention.key.{weight,bias}   general [H, H] (no bias); concat/additive/MLP [A, H]
//   decoder.attention.query.weight        concat/additive/MLP [A, H]
//   decoder.attention.hidden.{weight,bias}  MLP only: [A, A], [A]
//   decoder.attention.v                   concat/additive/MLP [A]
//   decoder.attention.cosine_scale        cosine only: [1], the learned key strength
//   decoder.attention.position.weight     local-p only: W_p [A, H]
//   decoder.attention.position_v          local-p only: v_p [A]
//   decoder.attention.location.{weight,bias}  location only: W_a [P, H], b [P], P = max_source_positions
//   decoder.combine.weight                [H, 2 H]   W_c over [c_t; h_t] (context columns first; absent
//                                         without attention: the output layer reads h_t)
//   decoder.output.{weight,bias}          [Vt, H]
// Biases are optional (absent = zero). A quantized tensor NAME has its f32 scales in NAME.scales.
#pragma once

#include <string>

namespace heed::names::rnn {

inline std::string encoder_cell(int layer, bool backward) {
  return "encoder.layers." + std::to_string(layer) + (backward ? ".bw" : ".fw");
}
inline std::string decoder_cell(int layer) { return "decoder.layers." + std::to_string(layer); }

inline constexpr const char* kEncoderEmbeddings = "encoder.embeddings";
inline constexpr const char* kDecoderEmbeddings = "decoder.embeddings";
inline constexpr const char* kAttentionKey = "decoder.attention.key";
inline constexpr const char* kAttentionQuery = "decoder.attention.query";
inline constexpr const char* kAttentionHidden = "decoder.attention.hidden";
inline constexpr const char* kAttentionV = "decoder.attention.v";
inline constexpr const char* kAttentionCosineScale = "decoder.attention.cosine_scale";
inline constexpr const char* kAttentionPosition = "decoder.attention.position";
inline constexpr const char* kAttentionPositionV = "decoder.attention.position_v";
inline constexpr const char* kAttentionLocation = "decoder.attention.location";
inline constexpr const char* kCombine = "decoder.combine";
inline constexpr const char* kOutput = "decoder.output";

}  // namespace heed::names::rnn
