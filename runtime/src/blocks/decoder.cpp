#include "blocks/decoder.h"

#include <cmath>
#include <cstring>

#include "blocks/sublayers.h"
#include "layers/attention.h"
#include "layers/rope.h"
#include "loader/model_index.h"

namespace heed::blocks {

namespace {

void embed_step(const Compute& cx, const StackWeights& w, const StackScratch& s, const DecoderStep& in) {
  const size_t d = w.config.d_model;
  for (size_t r = 0; r < in.rows; ++r) embed_token(cx, w, in.positions, in.ids[r], in.step, s.x() + r * d);
  if (w.has_embedding_norm) normalize_rows(cx, w.embedding_norm, s.x(), in.rows);
}

// Query rows one attention call runs side by side: the first sentence's run of consecutive rows (a
// beam search's hypotheses) if it divides the rows and the kernel's row group holds it, else 1.
// Any value gives the same results (each row's arithmetic is that of the row alone): it sets which
// rows share a call and the order of the calls.
size_t rows_per_call(const CrossMemory* m, size_t rows) {
  if (m == nullptr) return 1;
  size_t group = 1;
  while (group < rows && m->row_sentences[group] == m->row_sentences[0]) ++group;
  return rows % group == 0 && group <= kernels::kAttentionRowGroup ? group : 1;
}

// Causal self-attention: this position's K/V join the cache; the query sees positions 0..step.
void self_attention(const Compute& cx, const Decoder& dec, size_t layer, const DecoderStep& in,
                    const layers::QuantScratch& q) {
  const StackConfig& c = dec.weights->config;
  const LayerWeights& l = dec.weights->layers[layer];
  const StackScratch& s = *dec.scratch;
  const size_t d = c.d_model, hd = c.head_dim, qd = c.q_dim(), ld = c.qkv_dim();
  const size_t rows = in.rows, heads = c.num_heads, group = c.num_heads / c.num_kv_heads;
  float* qkv = s.qkv();
  const float* input = sublayer_input(cx, c, l.self_norm, s.x(), s.normed(), rows);
  l.self_qkv.forward(*cx.k, input, rows, d, qkv, ld, kernels::Activation::kNone, false, q, cx.pool);
  if (c.position_encoding == fb::PositionEncoding::RoPE) {
    const float* rope_row = in.positions + in.step * hd;
    for (size_t r = 0; r < rows; ++r) {
      layers::apply_rope(qkv + r * ld, c.num_heads, hd, rope_row);
      layers::apply_rope(qkv + r * ld + qd, c.num_kv_heads, hd, rope_row);
    }
  }
  dec.cache->store(layer, qkv, ld, qd, rows, in.step);
  const float* kcache = dec.cache->keys(layer);
  const float* vcache = dec.cache->values(layer);
  const size_t length = in.step + 1;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // Calls by (rows of a sentence, head), split between the threads, each task with its own scores
  // rows: a sentence's beam rows share the positions of their common prefix.
  const size_t call_rows = rows_per_call(dec.cross, rows), calls = rows / call_rows * heads;
  threading::parallel_ranges(cx.pool, calls, threading::min_items_for(2 * call_rows * length * hd),
                             [&](size_t task, size_t begin, size_t end) {
    auto input = [&](size_t call, size_t* r, size_t* head) {
      *r = call / heads * call_rows;
      *head = call % heads;
      const size_t kvh = *head / group;  // grouped-query: `group` query heads share one K/V head
      layers::AttentionInput a;
      a.query = qkv + *r * ld + *head * hd;
      a.rows = call_rows;
      a.query_stride = ld;
      a.keys = kcache + kvh * hd;
      a.values = vcache + kvh * hd;
      a.offsets = dec.cache->offsets(*r);
      a.offsets_stride = dec.cache->offsets_stride();
      a.length = length;
      a.head_dim = hd;
      a.scale = scale;
      return a;
    };
    size_t r, head;
    for (size_t call = begin; call < end; ++call) {
      if (call + 1 < end) layers::prefetch_keys_values(input(call + 1, &r, &head));  // while this one attends
      const layers::AttentionInput a = input(call, &r, &head);
      layers::attend(*cx.k, a, s.scores(task), s.scores_floats(), s.context() + r * qd + head * hd, qd);
    }
  });
  l.self_out.forward_consuming(*cx.k, s.context(), rows, qd, s.x(), d, kernels::Activation::kNone, true, q, cx.pool);
  sublayer_output(cx, c, l.self_norm, s.x(), rows);
}

// Attention of every (row, head) over the row's sentence: keys and values projected by start().
void attend_memory(const Compute& cx, const Decoder& dec, size_t layer, size_t rows) {
  const StackConfig& c = dec.weights->config;
  const CrossMemory& m = *dec.cross;
  const StackScratch& s = *dec.scratch;
  const size_t hd = c.head_dim, qd = c.q_dim(), heads = c.num_heads;
  const size_t kv_ld = cross_memory_row_floats(qd);
  const size_t layers_count = dec.weights->layers.size();
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const float* kv = m.kv[layer].as<const float>();
  const float* query = s.qkv();
  const size_t average_source = (m.offsets[m.batch] + m.batch - 1) / m.batch;
  const size_t call_rows = rows_per_call(&m, rows), calls = rows / call_rows * heads;
  threading::parallel_ranges(cx.pool, calls, threading::min_items_for(2 * call_rows * average_source * hd),
                             [&](size_t task, size_t begin, size_t end) {
    float* scores = s.scores(task);
    // Calls by sentence, then head, all of the sentence's beam rows in one: a head's keys and
    // values are read from memory once for all of them.
    auto input = [&](size_t call, size_t* r, size_t* head) {
      *r = call / heads * call_rows;
      *head = call % heads;
      const size_t sentence = m.row_sentences[*r];
      const float* mem = kv + m.offsets[sentence] * kv_ld;
      layers::AttentionInput a;
      a.query = query + *r * qd + *head * hd;
      a.rows = call_rows;
      a.query_stride = qd;
      a.keys = mem + *head * hd;
      a.values = mem + qd + *head * hd;
      a.key_stride = a.value_stride = kv_ld;
      a.length = m.offsets[sentence + 1] - m.offsets[sentence];
      a.head_dim = hd;
      a.scale = scale;
      return a;
    };
    size_t r, head;
    for (size_t call = begin; call < end; ++call) {
      if (call + 1 < end) layers::prefetch_keys_values(input(call + 1, &r, &head));  // while this one attends
      const layers::AttentionInput a = input(call, &r, &head);
      layers::attend(*cx.k, a, scores, s.scores_floats(), s.context() + r * qd + head * hd, qd);
      if (m.captured == nullptr) continue;
      for (size_t i = 0; i < a.rows; ++i) {  // attend() leaves row i's softmax probabilities at scores + i * length
        float* panel = m.captured + (((r + i) * layers_count + layer) * heads + head) * m.max_source_len;
        std::memcpy(panel, scores + i * a.length, a.length * sizeof(float));
      }
    }
  });
}

void cross_attention(const Compute& cx, const Decoder& dec, size_t layer, size_t rows, const layers::QuantScratch& q) {
  const StackConfig& c = dec.weights->config;
  const LayerWeights& l = dec.weights->layers[layer];
  const StackScratch& s = *dec.scratch;
  const size_t d = c.d_model, qd = c.q_dim();
  const float* input = sublayer_input(cx, c, l.cross_norm, s.x(), s.normed(), rows);
  l.cross_q.forward(*cx.k, input, rows, d, s.qkv(), qd, kernels::Activation::kNone, false, q, cx.pool);
  attend_memory(cx, dec, layer, rows);
  l.cross_out.forward_consuming(*cx.k, s.context(), rows, qd, s.x(), d, kernels::Activation::kNone, true, q, cx.pool);
  sublayer_output(cx, c, l.cross_norm, s.x(), rows);
}

void project_to_vocabulary(const Compute& cx, const Decoder& dec, size_t rows, const layers::QuantScratch& q,
                           float* logits) {
  const StackWeights& w = *dec.weights;
  const size_t d = w.config.d_model, V = w.config.vocab_size;
  const float* last = dec.scratch->x();
  if (w.has_final_norm) {
    w.final_norm.apply(*cx.k, dec.scratch->x(), rows, dec.scratch->normed(), cx.pool);
    last = dec.scratch->normed();
  }
  dec.output->forward(*cx.k, last, rows, d, logits, V, kernels::Activation::kNone, false, q, cx.pool);
}

}  // namespace

void decoder_step(const Compute& cx, const Decoder& dec, const DecoderStep& in, float* logits) {
  const StackConfig& c = dec.weights->config;
  const layers::QuantScratch q = dec.scratch->quant();
  embed_step(cx, *dec.weights, *dec.scratch, in);
  dec.cache->begin_step(in.rows, in.step);
  for (size_t layer = 0; layer < dec.weights->layers.size(); ++layer) {
    self_attention(cx, dec, layer, in, q);
    if (dec.cross != nullptr) cross_attention(cx, dec, layer, in.rows, q);
    feed_forward(cx, c, dec.weights->layers[layer], *dec.scratch, dec.scratch->x(), q, in.rows);
  }
  project_to_vocabulary(cx, dec, in.rows, q, logits);
}

}  // namespace heed::blocks
