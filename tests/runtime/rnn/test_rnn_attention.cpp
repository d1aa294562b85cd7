// Every score function and alignment of the RNN attention against a plain double-precision
// implementation of the formulas written here, on random weights stored in a real .heed file.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "heed/kernels.h"
#include "heed/model.h"
#include "loader/model_index.h"
#include "heed_format/rnn_names.h"
#include "heed_writer.h"
#include "neutral_model.h"
#include "quantize.h"
#include "rnn/rnn_attention.h"

namespace {

using heed::fb::AttentionAlignment;
using heed::fb::AttentionScore;
namespace n = heed::names::rnn;

constexpr size_t H = 12, A = 10, P = 7;  // P: the location score's fixed source positions

struct Weights {
  std::vector<float> key, key_bias, query, hidden, hidden_bias, v, position, position_v, location, location_bias;
  float cosine_scale = 3.5f;
};

std::vector<float> random_values(size_t count, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(count);
  for (float& x : v) x = u(rng);
  return v;
}

struct Built {
  std::vector<uint8_t> bytes;
  std::unique_ptr<heed::Model> model;
};

// A .heed file holding only the attention tensors (enough for RnnAttention::load).
Built build(AttentionScore score, AttentionAlignment alignment, const Weights& w, bool int8) {
  heed::convert::NeutralModel m;
  heed::fb::RnnSeq2SeqT r;
  r.source_vocab_size = r.target_vocab_size = 4;
  r.embedding_dim = 4;
  r.hidden_dim = H;
  r.attention_dim = A;
  r.score = score;
  r.alignment = alignment;
  r.window = 2;
  if (score == AttentionScore::Location) r.max_source_positions = P;
  m.config.Set(std::move(r));
  const std::string key = n::kAttentionKey, query = n::kAttentionQuery, hidden = n::kAttentionHidden;
  if (score == AttentionScore::General) m.add_f32(key + ".weight", {H, H}, w.key.data()).quantizable = true;
  if (score == AttentionScore::Concat || score == AttentionScore::Additive || score == AttentionScore::MLP) {
    m.add_f32(key + ".weight", {A, H}, w.key.data()).quantizable = true;
    if (score != AttentionScore::Concat) m.add_f32(key + ".bias", {A}, w.key_bias.data());
    m.add_f32(query + ".weight", {A, H}, w.query.data()).quantizable = true;
    m.add_f32(n::kAttentionV, {A}, w.v.data());
  }
  if (score == AttentionScore::MLP) {
    m.add_f32(hidden + ".weight", {A, A}, w.hidden.data()).quantizable = true;
    m.add_f32(hidden + ".bias", {A}, w.hidden_bias.data());
  }
  if (score == AttentionScore::Cosine) m.add_f32(n::kAttentionCosineScale, {1}, &w.cosine_scale);
  if (score == AttentionScore::Location) {
    const std::string location = n::kAttentionLocation;
    m.add_f32(location + ".weight", {P, H}, w.location.data()).quantizable = true;
    m.add_f32(location + ".bias", {P}, w.location_bias.data());
  }
  if (alignment == AttentionAlignment::LocalPredictive) {
    m.add_f32(std::string(n::kAttentionPosition) + ".weight", {A, H}, w.position.data()).quantizable = true;
    m.add_f32(n::kAttentionPositionV, {A}, w.position_v.data());
  }
  heed::convert::QuantizeOptions q;
  q.type = int8 ? heed::convert::WeightType::kInt8 : heed::convert::WeightType::kFloat32;
  REQUIRE(heed::convert::quantize_model(&m, q, nullptr).is_ok());
  Built b;
  const heed::Status s = heed::convert::serialize_heed(m, &b.bytes);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const heed::Status l = heed::Model::from_bytes(b.bytes.data(), b.bytes.size(), &b.model);
  INFO(l.message());
  REQUIRE(l.is_ok());
  return b;
}

void load_attention(heed::rnn::RnnAttention* att, const Built& b, const heed::rnn::AttentionConfig& c) {
  const heed::Status s = att->load(*b.model, c);
  INFO(s.message());
  REQUIRE(s.is_ok());
}

// attend()'s buffers for a source of S positions.
struct AttendBuffers {
  std::vector<float> scratch;
  std::vector<int8_t> qbuf;
  std::vector<float> qscales;
  heed::layers::QuantScratch qs;
  AttendBuffers(const heed::rnn::RnnAttention& att, size_t S)
      : scratch(att.scratch_floats(S)), qbuf(att.quant_rows(S) * att.quant_cols()), qscales(att.quant_rows(S)),
        qs{qbuf.data(), qscales.data(), att.quant_rows(S), att.quant_cols()} {}
};

// y = W x (+ b), W [rows, cols] row-major, in double.
std::vector<double> matvec(const std::vector<float>& w, const std::vector<float>* b, const double* x, size_t rows,
                           size_t cols) {
  std::vector<double> y(rows);
  for (size_t i = 0; i < rows; ++i) {
    double s = b ? (*b)[i] : 0.0;
    for (size_t j = 0; j < cols; ++j) s += double(w[i * cols + j]) * x[j];
    y[i] = s;
  }
  return y;
}

// The literature's formulas, directly.
void reference(AttentionScore score, AttentionAlignment alignment, bool hard, const Weights& w,
               const std::vector<float>& q, const std::vector<float>& mem, size_t S, size_t step, size_t D,
               std::vector<double>* weights, std::vector<double>* context) {
  std::vector<double> qd(q.begin(), q.end()), e(S);
  for (size_t s = 0; s < S; ++s) {
    std::vector<double> hs(mem.begin() + s * H, mem.begin() + (s + 1) * H);
    double dot = 0, qq = 0, kk = 0;
    for (size_t j = 0; j < H; ++j) {
      dot += qd[j] * hs[j];
      qq += qd[j] * qd[j];
      kk += hs[j] * hs[j];
    }
    switch (score) {
      case AttentionScore::Dot: e[s] = dot; break;
      case AttentionScore::ScaledDot: e[s] = dot / std::sqrt(double(H)); break;
      case AttentionScore::General: {
        const auto wh = matvec(w.key, nullptr, hs.data(), H, H);
        double g = 0;
        for (size_t j = 0; j < H; ++j) g += qd[j] * wh[j];
        e[s] = g;
        break;
      }
      case AttentionScore::Cosine: e[s] = w.cosine_scale * dot / (std::sqrt(qq) * std::sqrt(kk)); break;
      default: {  // concat / additive / MLP: v . f(W_k h_s + b + W_q q)
        const bool bias = score != AttentionScore::Concat;
        auto t = matvec(w.key, bias ? &w.key_bias : nullptr, hs.data(), A, H);
        const auto wq = matvec(w.query, nullptr, qd.data(), A, H);
        for (size_t i = 0; i < A; ++i) t[i] = std::tanh(t[i] + wq[i]);
        if (score == AttentionScore::MLP) {
          t = matvec(w.hidden, &w.hidden_bias, t.data(), A, A);
          for (double& x : t) x = std::tanh(x);
        }
        double v = 0;
        for (size_t i = 0; i < A; ++i) v += double(w.v[i]) * t[i];
        e[s] = v;
      }
    }
  }
  double p = 0;
  std::vector<bool> in(S, true);
  if (alignment == AttentionAlignment::LocalMonotonic) p = double(std::min(step, S - 1));
  if (alignment == AttentionAlignment::LocalPredictive) {
    auto t = matvec(w.position, nullptr, qd.data(), A, H);
    double z = 0;
    for (size_t i = 0; i < A; ++i) z += double(w.position_v[i]) * std::tanh(t[i]);
    p = double(S) / (1.0 + std::exp(-z));
  }
  if (alignment != AttentionAlignment::Global) {
    for (size_t s = 0; s < S; ++s) in[s] = std::fabs(double(s) - p) <= double(D);
  }
  double mx = -1e300, sum = 0;
  for (size_t s = 0; s < S; ++s) if (in[s]) mx = std::max(mx, e[s]);
  weights->assign(S, 0.0);
  for (size_t s = 0; s < S; ++s) if (in[s]) sum += ((*weights)[s] = std::exp(e[s] - mx));
  for (size_t s = 0; s < S; ++s) (*weights)[s] /= sum;
  if (alignment == AttentionAlignment::LocalPredictive) {
    const double sigma = D / 2.0;
    for (size_t s = 0; s < S; ++s) (*weights)[s] *= std::exp(-(s - p) * (s - p) / (2 * sigma * sigma));
  }
  if (hard) {
    size_t best = 0;
    for (size_t s = 1; s < S; ++s) if ((*weights)[s] > (*weights)[best]) best = s;
    for (size_t s = 0; s < S; ++s) (*weights)[s] = s == best ? 1.0 : 0.0;
  }
  context->assign(H, 0.0);
  for (size_t s = 0; s < S; ++s)
    for (size_t j = 0; j < H; ++j) (*context)[j] += (*weights)[s] * mem[s * H + j];
}

}  // namespace

TEST_CASE("each score and alignment, soft and hard, matches the formulas") {
  const AttentionScore scores[] = {AttentionScore::Dot,      AttentionScore::ScaledDot, AttentionScore::General,
                                   AttentionScore::Concat,   AttentionScore::Additive,  AttentionScore::Cosine,
                                   AttentionScore::MLP};
  const AttentionAlignment alignments[] = {AttentionAlignment::Global, AttentionAlignment::LocalMonotonic,
                                           AttentionAlignment::LocalPredictive};
  const heed::kernels::KernelTable& k = heed::kernels::best();
  std::mt19937 rng(7);
  Weights w;
  w.key = random_values(H * H, 0.4f, rng);
  w.key_bias = random_values(A, 0.3f, rng);
  w.query = random_values(A * H, 0.4f, rng);
  w.hidden = random_values(A * A, 0.4f, rng);
  w.hidden_bias = random_values(A, 0.3f, rng);
  w.v = random_values(A, 0.8f, rng);
  w.position = random_values(A * H, 0.4f, rng);
  w.position_v = random_values(A, 1.0f, rng);
  const size_t D = 2;
  for (AttentionScore score : scores) {
    for (AttentionAlignment alignment : alignments) {
      for (bool hard : {false, true}) {
        INFO("score " << heed::fb::EnumNameAttentionScore(score) << ", alignment "
                      << heed::fb::EnumNameAttentionAlignment(alignment) << (hard ? ", hard" : ", soft"));
        Built b = build(score, alignment, w, false);
        heed::rnn::AttentionConfig c;
        c.score = score;
        c.alignment = alignment;
        c.hard = hard;
        c.hidden = H;
        c.attention_dim = A;
        c.window = D;
        heed::rnn::RnnAttention att;
        load_attention(&att, b, c);
        for (size_t S : {1u, 5u, 9u}) {
          const auto mem = random_values(S * H, 1.0f, rng);
          std::vector<float> keys(S * std::max<size_t>(att.key_dim(), 1));
          AttendBuffers buffers(att, S);
          float* scratch = buffers.scratch.data();
          const heed::layers::QuantScratch& qs = buffers.qs;
          att.precompute(k, mem.data(), S, keys.data(), qs);
          for (size_t step : {0u, 3u, 12u}) {
            const auto q = random_values(H, 1.0f, rng);
            std::vector<float> weights(S), context(H);
            att.attend(k, q.data(), mem.data(), keys.data(), S, step, weights.data(), context.data(), scratch, qs);
            std::vector<double> want_w, want_c;
            reference(score, alignment, hard, w, q, mem, S, step, D, &want_w, &want_c);
            INFO("S " << S << ", step " << step);
            for (size_t s = 0; s < S; ++s) REQUIRE(weights[s] == Approx(want_w[s]).margin(2e-5));
            for (size_t j = 0; j < H; ++j) REQUIRE(context[j] == Approx(want_c[j]).margin(2e-5));
          }
        }
      }
    }
  }
}

namespace {

// Luong's location score as docs/torch-seq2seq.md defines it: softmax(W_a q + b) over P positions;
// the positions at or beyond the source hold zero memory.
void location_reference(bool hard, const Weights& w, const std::vector<float>& q, const std::vector<float>& mem,
                        size_t S, std::vector<double>* weights, std::vector<double>* context) {
  const std::vector<double> qd(q.begin(), q.end());
  std::vector<double> a = matvec(w.location, &w.location_bias, qd.data(), P, H);
  const double mx = *std::max_element(a.begin(), a.end());
  double sum = 0;
  for (double& x : a) sum += (x = std::exp(x - mx));
  for (double& x : a) x /= sum;
  if (hard) {
    const size_t best = static_cast<size_t>(std::max_element(a.begin(), a.end()) - a.begin());
    for (size_t s = 0; s < P; ++s) a[s] = s == best ? 1.0 : 0.0;
  }
  weights->assign(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(S));
  context->assign(H, 0.0);
  for (size_t s = 0; s < S; ++s)
    for (size_t j = 0; j < H; ++j) (*context)[j] += a[s] * mem[s * H + j];
}

}  // namespace

TEST_CASE("the location score: softmax over fixed positions, zero memory beyond the source") {
  std::mt19937 rng(5);
  Weights w;
  w.location = random_values(P * H, 0.6f, rng);
  w.location_bias = random_values(P, 0.5f, rng);
  const Built b = build(AttentionScore::Location, AttentionAlignment::Global, w, false);
  const heed::kernels::KernelTable& k = heed::kernels::best();
  for (bool hard : {false, true}) {
    heed::rnn::AttentionConfig c;
    c.score = AttentionScore::Location;
    c.hard = hard;
    c.hidden = H;
    c.positions = P;
    heed::rnn::RnnAttention att;
    load_attention(&att, b, c);
    REQUIRE(att.key_dim() == 0);
    for (size_t S : {size_t{1}, size_t{4}, P}) {
      const auto mem = random_values(S * H, 1.0f, rng);
      AttendBuffers buffers(att, S);
      for (int trial = 0; trial < 4; ++trial) {
        const auto q = random_values(H, 1.5f, rng);
        std::vector<float> weights(S), context(H);
        att.attend(k, q.data(), mem.data(), nullptr, S, 0, weights.data(), context.data(), buffers.scratch.data(),
                   buffers.qs);
        std::vector<double> want_w, want_c;
        location_reference(hard, w, q, mem, S, &want_w, &want_c);
        INFO((hard ? "hard" : "soft") << ", S " << S << ", trial " << trial);
        double total = 0;
        for (size_t s = 0; s < S; ++s) {
          REQUIRE(weights[s] == Approx(want_w[s]).margin(2e-5));
          total += weights[s];
        }
        if (S < P && !hard) CHECK(total < 1.0);  // the positions beyond the source kept their share
        for (size_t j = 0; j < H; ++j) REQUIRE(context[j] == Approx(want_c[j]).margin(2e-5));
      }
    }
  }
  heed::rnn::AttentionConfig c;  // the location score without its positions
  c.score = AttentionScore::Location;
  c.hidden = H;
  heed::rnn::RnnAttention att;
  CHECK(att.load(*b.model, c).message().find("max_source_positions") != std::string::npos);
}

TEST_CASE("int8 attention weights stay close to the float ones") {
  const heed::kernels::KernelTable& k = heed::kernels::best();
  std::mt19937 rng(11);
  Weights w;
  w.key = random_values(A * H, 0.4f, rng);
  w.key_bias = random_values(A, 0.3f, rng);
  w.query = random_values(A * H, 0.4f, rng);
  w.hidden = random_values(A * A, 0.4f, rng);
  w.hidden_bias = random_values(A, 0.3f, rng);
  w.v = random_values(A, 0.8f, rng);
  Built b = build(AttentionScore::MLP, AttentionAlignment::Global, w, true);
  heed::rnn::AttentionConfig c;
  c.score = AttentionScore::MLP;
  c.hidden = H;
  c.attention_dim = A;
  heed::rnn::RnnAttention att;
  load_attention(&att, b, c);
  const size_t S = 6;
  const auto mem = random_values(S * H, 1.0f, rng);
  const auto q = random_values(H, 1.0f, rng);
  std::vector<float> keys(S * att.key_dim()), weights(S), context(H);
  AttendBuffers buffers(att, S);
  att.precompute(k, mem.data(), S, keys.data(), buffers.qs);
  att.attend(k, q.data(), mem.data(), keys.data(), S, 0, weights.data(), context.data(), buffers.scratch.data(),
             buffers.qs);
  std::vector<double> want_w, want_c;
  reference(AttentionScore::MLP, AttentionAlignment::Global, false, w, q, mem, S, 0, 0, &want_w, &want_c);
  for (size_t s = 0; s < S; ++s) REQUIRE(weights[s] == Approx(want_w[s]).margin(2e-2));
}

TEST_CASE("a missing attention tensor is a clear error naming it") {
  std::mt19937 rng(3);
  Weights w;
  w.key = random_values(H * H, 0.4f, rng);
  Built b = build(AttentionScore::General, AttentionAlignment::Global, w, false);
  heed::rnn::AttentionConfig c;
  c.score = AttentionScore::Additive;  // needs key [A, H], query, v: the file has general's key only
  c.hidden = H;
  c.attention_dim = A;
  heed::rnn::RnnAttention att;
  const heed::Status s = att.load(*b.model, c);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find(n::kAttentionKey) != std::string::npos);
}
