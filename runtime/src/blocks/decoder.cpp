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

// The first sentence's run of consecutive rows (a beam search's hypotheses), if it divides the rows,
// else 1. It orders the attention items only: any value gives the same results.
size_t rows_per_sentence(const CrossMemory& m, size_t rows) {
  size_t group = 1;
  while (group < rows && m.row_sentences[group] == m.row_sentences[0]) ++group;
  return rows % group == 0 ? group : 1;
}

// Attention item -> (row, head), items ordered by groups of beam_rows rows, then head, then the
// group's rows: a sentence's beam rows attend one head after another.
void item_row_head(size_t item, size_t heads, size_t beam_rows, size_t* r, size_t* head) {
  const size_t in_group = item % (heads * beam_rows);
  *head = in_group / beam_rows;
  *r = item / (heads * beam_rows) * beam_rows + in_group % beam_rows;
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
  // (row, head) pairs split between the threads, each task with its own scores row; ordered by
  // sentence, head, row: a sentence's beam rows share the positions of their common prefix.
  const size_t beam_rows = dec.cross != nullptr ? rows_per_sentence(*dec.cross, rows) : 1;
  threading::parallel_ranges(cx.pool, rows * heads, threading::min_items_for(2 * length * hd),
                             [&](size_t task, size_t begin, size_t end) {
    float* scores = s.scores(task);
    auto input = [&](size_t item, size_t* r, size_t* head) {
      item_row_head(item, heads, beam_rows, r, head);
      const size_t kvh = *head / group;  // grouped-query: `group` query heads share one K/V head
      layers::AttentionInput a;
      a.query = qkv + *r * ld + *head * hd;
      a.keys = kcache + kvh * hd;
      a.values = vcache + kvh * hd;
      a.offsets = dec.cache->offsets(*r);
      a.length = length;
      a.head_dim = hd;
      a.scale = scale;
      return a;
    };
    size_t r, head;
    for (size_t item = begin; item < end; ++item) {
      // The same row's next head (or the next sentence's row) while this one attends.
      if (item + beam_rows < end) layers::prefetch_keys_values(input(item + beam_rows, &r, &head));
      const layers::AttentionInput a = input(item, &r, &head);
      layers::attend(*cx.k, a, scores, s.context() + r * qd + head * hd);
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
  const size_t beam_rows = rows_per_sentence(m, rows);
  threading::parallel_ranges(cx.pool, rows * heads, threading::min_items_for(2 * average_source * hd),
                             [&](size_t task, size_t begin, size_t end) {
    float* scores = s.scores(task);
    // Items by sentence, then head, then the sentence's rows: a head's keys and values are read
    // from memory once for all of the sentence's beam rows, then from L1.
    auto input = [&](size_t item, size_t* r, size_t* head) {
      item_row_head(item, heads, beam_rows, r, head);
      const size_t sentence = m.row_sentences[*r];
      const float* mem = kv + m.offsets[sentence] * kv_ld;
      layers::AttentionInput a;
      a.query = query + *r * qd + *head * hd;
      a.keys = mem + *head * hd;
      a.values = mem + qd + *head * hd;
      a.key_stride = a.value_stride = kv_ld;
      a.length = m.offsets[sentence + 1] - m.offsets[sentence];
      a.head_dim = hd;
      a.scale = scale;
      return a;
    };
    size_t r, head;
    for (size_t item = begin; item < end; ++item) {
      // The next group's keys and values while this group's rows attend.
      if (item % beam_rows == 0 && item + beam_rows < end) {
        layers::prefetch_keys_values(input(item + beam_rows, &r, &head));
      }
      const layers::AttentionInput a = input(item, &r, &head);
      layers::attend(*cx.k, a, scores, s.context() + r * qd + head * hd);
      if (m.captured != nullptr) {
        // attend() leaves the softmax probabilities in `scores`.
        float* panel = m.captured + ((r * layers_count + layer) * heads + head) * m.max_source_len;
        std::memcpy(panel, scores, a.length * sizeof(float));
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
