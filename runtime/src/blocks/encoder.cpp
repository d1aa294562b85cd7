#include "blocks/encoder.h"

#include <cmath>

#include "blocks/sublayers.h"

namespace heed::blocks {

namespace {

void embed_sentences(const Compute& cx, const StackWeights& w, const StackScratch& s, const EncoderInput& in) {
  const size_t d = w.config.d_model;
  const TokenBatch& batch = *in.batch;
  for (size_t i = 0; i < batch.size; ++i) {
    const int32_t* ids = batch.sequence(i);
    for (size_t t = 0; t < batch.length(i); ++t) {
      float* row = s.x() + (in.offsets[i] + t) * d;
      embed_token(cx, w, in.sinusoidal, ids[t], t, row);
      if (in.token_types != nullptr) in.token_types->gather(0, 1.0f, true, row);  // single sentences: segment 0
    }
  }
  if (w.has_embedding_norm) normalize_rows(cx, w.embedding_norm, s.x(), in.offsets[batch.size]);
}

// Every (sentence, head) pair of a group of sentences attends over its own sentence's rows, all
// query rows in one call of the fused attention slot (which runs them as blocks of GEMMs:
// heed/kernels.h); the pairs are split between the threads, each task with its own scratch. A
// pair's result does not depend on which task runs it. offsets[0..batch] are the group's
// sentences' first rows in the whole batch; qkv and context hold the group's rows from row 0.
// bf16_products: the kernel may multiply in bfloat16 (StackWeights::bf16_attention), for sentences
// of at least kBf16AttentionMinTokens tokens: attention grows with the square of the length, so
// short sentences have little to gain, and they are where int8 already strays furthest from
// float32 (all-MiniLM's lowest cosine in docs/quantization.md, 0.99914, is "Thanks a lot").
constexpr size_t kBf16AttentionMinTokens = 64;

// Head `head`'s bias for a sentence of `length` tokens, as the kernel indexes it (distances from
// -(length - 1)); null without a bias.
const float* sentence_bias(const RelativeBias& bias, size_t head, size_t length) {
  if (bias.table == nullptr) return nullptr;
  return bias.table + head * (2 * bias.length - 1) + (bias.length - length);
}

void packed_self_attention(const Compute& cx, const StackConfig& c, const StackScratch& s, const size_t* offsets,
                           size_t batch, bool bf16_products, const RelativeBias& bias) {
  const size_t hd = c.head_dim, qd = c.q_dim(), kvd = c.kv_dim(), ld = c.qkv_dim(), heads = c.num_heads;
  const size_t group = c.num_heads / c.num_kv_heads;
  const float* qkv = s.qkv();
  float* ctx = s.context();
  const size_t base = offsets[0], tokens = offsets[batch] - base;
  const size_t average_length = (tokens + batch - 1) / batch;
  kernels::AttentionParams p;
  p.num_heads = p.num_kv_heads = 1;
  p.head_dim = hd;
  p.q_row_stride = p.k_row_stride = p.v_row_stride = ld;
  p.out_row_stride = qd;
  p.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  p.scores_floats = s.scores_floats();
  threading::parallel_ranges(cx.pool, batch * heads, threading::min_items_for(2 * average_length * average_length * hd),
                             [&](size_t task, size_t begin, size_t end) {
    kernels::AttentionParams a = p;
    a.scores = s.scores(task);
    for (size_t item = begin; item < end; ++item) {
      const size_t sentence = item / heads, head = item % heads, kvh = head / group;
      const size_t first = offsets[sentence] - base;
      a.q_rows = a.kv_len = offsets[sentence + 1] - offsets[sentence];
      a.bf16_products = bf16_products && a.q_rows >= kBf16AttentionMinTokens;
      a.q = qkv + first * ld + head * hd;
      a.k = qkv + first * ld + qd + kvh * hd;
      a.v = qkv + first * ld + qd + kvd + kvh * hd;
      a.out = ctx + first * qd + head * hd;
      a.relative_bias = sentence_bias(bias, head, a.q_rows);
      cx.k->attention(a);
    }
  });
}

// Every layer over one group of `batch` sentences (offsets as above): x is the group's rows of
// s.x(); the other buffers of s hold the group's rows from row 0.
void encode_group(const Compute& cx, const StackWeights& w, const StackScratch& s, const size_t* offsets,
                  size_t batch, const RelativeBias& bias) {
  const StackConfig& c = w.config;
  const size_t d = c.d_model, qd = c.q_dim(), ld = c.qkv_dim();
  const size_t tokens = offsets[batch] - offsets[0];
  const layers::QuantScratch q = s.quant();
  float* x = s.x() + offsets[0] * d;
  for (const LayerWeights& l : w.layers) {
    const float* input = sublayer_input(cx, c, l.self_norm, x, s.normed(), tokens);
    l.self_qkv.forward(*cx.k, input, tokens, d, s.qkv(), ld, kernels::Activation::kNone, false, q, cx.pool);
    packed_self_attention(cx, c, s, offsets, batch, w.bf16_attention && l.self_qkv.dtype() == fb::DType::I8, bias);
    l.self_out.forward_consuming(*cx.k, s.context(), tokens, qd, x, d, kernels::Activation::kNone, true, q, cx.pool);
    sublayer_output(cx, c, l.self_norm, x, tokens);
    feed_forward(cx, c, l, s, x, q, tokens);
  }
}

// Sentences per group: as many as fit in kEncoderGroupTokens rows (at least one). Every row's
// result is the same for any grouping. The session plans the per-layer buffers for one group
// instead of the whole batch (heed embed --batch 32 on 256-token inputs: 55 instead of 118 MiB
// peak RSS), and a group's Q, K, V, context and FFN rows stay in cache between the products,
// attention and norms, where a whole batch (32 x 256 tokens: 36 MiB of Q, K and V per layer)
// streamed them through memory (int8 embed: 2-3 % faster, within this machine's noise).
size_t group_end(const size_t* offsets, size_t first, size_t batch) {
  size_t end = first + 1;
  while (end < batch && offsets[end + 1] - offsets[first] <= kEncoderGroupTokens) ++end;
  return end;
}

// Sentences [begin, end) group by group, each through every layer.
void encode_groups(const Compute& cx, const StackWeights& w, const StackScratch& s, const EncoderInput& in,
                   size_t begin, size_t end) {
  for (size_t first = begin, stop = begin; first < end; first = stop) {
    stop = group_end(in.offsets, first, end);
    encode_group(cx, w, s, in.offsets + first, stop - first, in.relative_bias);
  }
}

// How many chunks of sentences the threads should take whole, each chunk's groups on one thread
// through every layer with its own per-layer buffers; 0: run the groups one after another and
// split each product and attention loop between the threads instead. Whole chunks hand nothing
// over between threads for the ~10 jobs of each layer, so they pay once every thread gets at
// least two chunks of kMinChunkTokens rows or more (GEMMs of fewer rows reuse their weights
// less); results are the same either way.
constexpr size_t kMinChunkTokens = 64;

size_t whole_group_chunks(const Compute& cx, const StackWeights& w, const StackScratch& s, const size_t* offsets,
                          size_t batch) {
  const size_t threads = cx.pool == nullptr ? 1 : cx.pool->threads();
  if (threads < 2 || s.group_slots() < threads || w.uses_xnnpack()) return 0;  // XNNPACK: one call at a time
  size_t chunks = threads * threading::kChunksPerThread;
  const size_t by_tokens = (offsets[batch] - offsets[0]) / kMinChunkTokens;
  if (chunks > by_tokens) chunks = by_tokens;
  if (chunks > batch) chunks = batch;
  return chunks >= 2 * threads ? chunks : 0;
}

}  // namespace

void pack_offsets(const TokenBatch& batch, size_t* offsets) {
  offsets[0] = 0;
  for (size_t i = 0; i < batch.size; ++i) offsets[i + 1] = offsets[i] + batch.length(i);
}

void encode_stack(const Compute& cx, const StackWeights& w, const StackScratch& s, const EncoderInput& in) {
  const size_t batch = in.batch->size;
  embed_sentences(cx, w, s, in);
  const size_t chunks = whole_group_chunks(cx, w, s, in.offsets, batch);
  if (chunks == 0) {
    encode_groups(cx, w, s, in, 0, batch);
  } else {
    cx.pool->run(chunks, [&](size_t thread, size_t chunk) {
      const size_t begin = batch * chunk / chunks, end = batch * (chunk + 1) / chunks;
      const Compute alone{cx.k, nullptr};
      encode_groups(alone, w, s.group_slot(thread, in.offsets[begin]), in, begin, end);
    });
  }
  if (w.has_final_norm) normalize_rows(cx, w.final_norm, s.x(), in.offsets[batch]);
}

}  // namespace heed::blocks
