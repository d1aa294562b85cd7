// The tensor names of every model family: the one place the converter (which writes them) and the
// runtime (which requires them) agree on. docs/format.md lists them with their shapes.
//
// Transformer stacks ("encoder" or "decoder" prefix), d = d_model, h = heads, kvh = KV heads,
// hd = head_dim, f = ffn_dim, V = vocabulary size:
//   {stack}.embeddings                    [V, d]
//   {stack}.positions                     [max_positions, d]   learned positions only
//   {stack}.embedding_norm.{gamma,beta}   [d]                  when embedding_norm
//   encoder.token_types                   [type_vocab_size, d] encoder-only (BERT), when type_vocab_size > 0
//   encoder.relative_attention_bias       [buckets, heads]     encoder-only (MPNet), when relative_attention_buckets > 0
//   {stack}.layers.{i}.self_attn.norm.{gamma,beta}   [d]     (beta absent for RMSNorm)
//   {stack}.layers.{i}.self_attn.qkv.{weight,bias}   [(h + 2 kvh) hd, d], [(h + 2 kvh) hd]
//   {stack}.layers.{i}.self_attn.out.{weight,bias}   [d, h hd], [d]
//   {stack}.layers.{i}.cross_attn.norm.{gamma,beta}  [d]          decoder of encoder-decoder
//   {stack}.layers.{i}.cross_attn.q.{weight,bias}    [h hd, d]
//   {stack}.layers.{i}.cross_attn.kv.{weight,bias}   [2 h hd, d]   (K rows first, then V rows)
//   {stack}.layers.{i}.cross_attn.out.{weight,bias}  [d, h hd]
//   {stack}.layers.{i}.ffn.norm.{gamma,beta}         [d]
//   {stack}.layers.{i}.ffn.in.{weight,bias}          [f, d]
//   {stack}.layers.{i}.ffn.gate.{weight,bias}        [f, d]        gated FFN only: act(in) * gate
//   {stack}.layers.{i}.ffn.out.{weight,bias}         [d, f]
//   {stack}.norm.{gamma,beta}             [d]                  when final_norm
//   decoder.output.{weight,bias}          [V, d], [V]          weight absent when tied_output
//                                                              (the bias may still be present)
// Encoder-only task heads (TransformerEncoderOnly.head), L = labels:
//   encoder.pooler.{weight,bias}          [d, d], [d]          SequenceClassification (tanh after it)
//   encoder.classifier.{weight,bias}      [L, d], [L]
//   encoder.mlm.transform.{weight,bias}   [d, d], [d]          MaskedLM (the stack's activation after it)
//   encoder.mlm.norm.{gamma,beta}         [d]                  LayerNorm, the stack's epsilon
//   encoder.mlm.output.{weight,bias}      [V, d], [V]          weight absent when tied to encoder.embeddings
// Biases are optional everywhere (absent = zero). With pre_norm, each sub-layer's norm applies to
// its input; with post-norm, to the sum after the residual.
// A quantized tensor NAME has its f32 scales in NAME.scales; a packed one (layout Packed16x4) its
// int32 row sums in NAME.row_sums.
//
// Every tensor whose name ends in ".weight" is the [out, in] matrix of a Linear layer, in every
// family (RNN cells and attention too), and nothing else reads it: embeddings and position tables
// have their own suffixes, and a tied output projection reads "decoder.embeddings". That is the
// set the converter packs (layers::Linear reads either layout; Embeddings only row-major).
#pragma once

#include <string>

namespace heed::names {

inline std::string layer(const std::string& stack, int i) { return stack + ".layers." + std::to_string(i); }
inline std::string scales(const std::string& tensor) { return tensor + ".scales"; }
inline std::string row_sums(const std::string& tensor) { return tensor + ".row_sums"; }
inline bool is_linear_weight(const std::string& tensor) {
  static const std::string suffix = ".weight";
  return tensor.size() > suffix.size() && tensor.compare(tensor.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace heed::names
