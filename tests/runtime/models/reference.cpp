#include "heed/kernels.h"
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "heed_format/tensor_names.h"
#include "quantize.h"
#include "loader/model_index.h"

namespace heed::test {

namespace {

using Matrix = std::vector<float>;  // row-major, dimensions carried by the caller

struct Weight {
  size_t rows = 0, cols = 0;
  Matrix values;                 // dequantized / widened
  bool int8 = false;
  std::vector<int8_t> q;
  std::vector<float> scales;     // per row, or per group
  size_t group = 0;              // 0: per row
};

const convert::NeutralTensor& get(const convert::NeutralModel& m, const std::string& name) {
  const convert::NeutralTensor* t = m.find(name);
  if (t == nullptr) throw std::runtime_error("reference: missing tensor " + name);
  return *t;
}

bool has(const convert::NeutralModel& m, const std::string& name) { return m.find(name) != nullptr; }

Weight weight(const convert::NeutralModel& m, const std::string& name) {
  const convert::NeutralTensor& t = get(m, name);
  Weight w;
  w.rows = t.shape.empty() ? 1 : t.shape[0];
  w.cols = t.num_elements() / w.rows;
  const size_t n = t.num_elements();
  w.values.resize(n);
  if (t.dtype == fb::DType::F32) {
    std::memcpy(w.values.data(), t.bytes.data(), n * sizeof(float));
  } else if (t.dtype == fb::DType::F16) {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, t.bytes.data() + 2 * i, 2);
      w.values[i] = heed::kernels::f16_to_f32_value(h);
    }
  } else if (t.dtype == fb::DType::I8) {
    w.int8 = true;
    w.q.resize(n);
    std::memcpy(w.q.data(), t.bytes.data(), n);
    const convert::NeutralTensor& s = get(m, t.scales);
    w.scales.resize(s.num_elements());
    std::memcpy(w.scales.data(), s.bytes.data(), w.scales.size() * sizeof(float));
    if (t.quantization == fb::Quantization::PerTensor) w.scales.assign(w.rows, w.scales[0]);
    w.group = t.quantization == fb::Quantization::PerGroup ? t.group_size : 0;
    const size_t groups = w.group ? (w.cols + w.group - 1) / w.group : 1;
    for (size_t r = 0; r < w.rows; ++r) {
      for (size_t c = 0; c < w.cols; ++c) {
        const float scale = w.group ? w.scales[r * groups + c / w.group] : w.scales[r];
        w.values[r * w.cols + c] = static_cast<float>(w.q[r * w.cols + c]) * scale;
      }
    }
  } else {
    throw std::runtime_error("reference: unexpected dtype of " + name);
  }
  return w;
}

Matrix vec(const convert::NeutralModel& m, const std::string& name, size_t n) {
  if (!has(m, name)) return Matrix(n, 0.0f);
  return weight(m, name).values;
}

float activate(float x, fb::Activation a) {
  switch (a) {
    case fb::Activation::ReLU: return x > 0 ? x : 0.0f;
    case fb::Activation::GELU: return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
    case fb::Activation::GELUTanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
    case fb::Activation::SiLU: return x / (1.0f + std::exp(-x));
  }
  return x;
}

// y[rows, out] = x[rows, in] W^T + b, int8 weights through per-row activation quantization.
Matrix linear(const convert::NeutralModel& m, const std::string& prefix, const Matrix& x, size_t rows,
              const std::string& weight_name = "") {
  const Weight w = weight(m, weight_name.empty() ? prefix + ".weight" : weight_name);
  const Matrix b = weight_name.empty() ? vec(m, prefix + ".bias", w.rows) : Matrix(w.rows, 0.0f);
  const size_t in = w.cols, out = w.rows;
  Matrix y(rows * out);
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = &x[r * in];
    if (!w.int8) {
      for (size_t o = 0; o < out; ++o) {
        double acc = 0;
        for (size_t k = 0; k < in; ++k) acc += static_cast<double>(xr[k]) * w.values[o * in + k];
        y[r * out + o] = static_cast<float>(acc) + b[o];
      }
      continue;
    }
    float max_abs = 0;
    for (size_t k = 0; k < in; ++k) max_abs = std::max(max_abs, std::fabs(xr[k]));
    const float a_scale = max_abs / 127.0f;
    std::vector<int32_t> qa(in, 0);
    if (max_abs > 0) {
      const float inv = 127.0f / max_abs;
      for (size_t k = 0; k < in; ++k) {
        qa[k] = static_cast<int32_t>(std::min(127.0f, std::max(-127.0f, std::round(xr[k] * inv))));
      }
    }
    const size_t group = w.group ? w.group : in;
    const size_t groups = (in + group - 1) / group;
    for (size_t o = 0; o < out; ++o) {
      double acc = 0;
      for (size_t g = 0; g < groups; ++g) {
        int64_t dot = 0;
        for (size_t k = g * group; k < std::min(in, (g + 1) * group); ++k) dot += qa[k] * w.q[o * in + k];
        const float w_scale = w.group ? w.scales[o * groups + g] : w.scales[o];
        acc += static_cast<double>(dot) * a_scale * w_scale;
      }
      y[r * out + o] = static_cast<float>(acc) + b[o];
    }
  }
  return y;
}

Matrix layer_norm(const convert::NeutralModel& m, const std::string& prefix, const Matrix& x, size_t rows,
                  size_t d, float eps) {
  const Matrix g = vec(m, prefix + ".gamma", d), b = vec(m, prefix + ".beta", d);
  Matrix y(rows * d);
  for (size_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < d; ++i) mean += x[r * d + i];
    mean /= d;
    for (size_t i = 0; i < d; ++i) var += (x[r * d + i] - mean) * (x[r * d + i] - mean);
    var /= d;
    for (size_t i = 0; i < d; ++i) {
      y[r * d + i] = static_cast<float>((x[r * d + i] - mean) / std::sqrt(var + eps)) * g[i] + b[i];
    }
  }
  return y;
}

struct Stack {
  const fb::TransformerStackT* cfg;
  std::string prefix;
  size_t d, heads, kv_heads, hd;
};

Stack make_stack(const fb::TransformerStackT* cfg, const std::string& prefix) {
  Stack s{cfg, prefix, cfg->d_model, cfg->num_heads, cfg->num_kv_heads ? cfg->num_kv_heads : cfg->num_heads, 0};
  s.hd = cfg->head_dim ? cfg->head_dim : s.d / s.heads;
  return s;
}

// softmax(q k^T / sqrt(hd)) v for every query row and head; key j visible to query i when
// visible(i, j). q: [nq, heads*hd] (row stride qs), k/v: [nk, kv_heads*hd] (strides ks/vs).
Matrix attention(const Stack& s, const float* q, size_t qs, size_t nq, const float* k, size_t ks,
                 const float* v, size_t vs, size_t nk, bool causal) {
  Matrix out(nq * s.heads * s.hd, 0.0f);
  for (size_t i = 0; i < nq; ++i) {
    for (size_t h = 0; h < s.heads; ++h) {
      const size_t kvh = h / (s.heads / s.kv_heads);
      const size_t n = causal ? i + 1 : nk;
      std::vector<double> w(n);
      double max = -1e300;
      for (size_t j = 0; j < n; ++j) {
        double dot = 0;
        for (size_t c = 0; c < s.hd; ++c) dot += static_cast<double>(q[i * qs + h * s.hd + c]) * k[j * ks + kvh * s.hd + c];
        w[j] = dot / std::sqrt(static_cast<double>(s.hd));
        max = std::max(max, w[j]);
      }
      double sum = 0;
      for (double& x : w) sum += (x = std::exp(x - max));
      for (size_t j = 0; j < n; ++j) {
        for (size_t c = 0; c < s.hd; ++c) {
          out[i * s.heads * s.hd + h * s.hd + c] += static_cast<float>(w[j] / sum * v[j * vs + kvh * s.hd + c]);
        }
      }
    }
  }
  return out;
}

// Embeddings * scale + positions (+ embedding norm) for tokens at positions 0..n-1.
Matrix embed(const convert::NeutralModel& m, const Stack& s, const std::string& table,
             const std::vector<int32_t>& ids) {
  const Weight e = weight(m, table);
  const size_t n = ids.size(), d = s.d;
  Matrix x(n * d);
  Weight pos;
  if (s.cfg->position_encoding == fb::PositionEncoding::Learned) pos = weight(m, s.prefix + ".positions");
  for (size_t t = 0; t < n; ++t) {
    for (size_t i = 0; i < d; ++i) {
      float v = e.values[ids[t] * d + i] * s.cfg->embedding_scale;
      if (s.cfg->position_encoding == fb::PositionEncoding::Sinusoidal) {
        // Position t + 1; sines in the first half, cosines in the second; frequencies
        // 10000^(-j / (d/2 - 1)).
        const size_t half = d / 2, j = i % half;
        const double angle = static_cast<double>(t + 1) * std::pow(10000.0, -static_cast<double>(j) / (half - 1));
        v += static_cast<float>(i < half ? std::sin(angle) : std::cos(angle));
      } else if (s.cfg->position_encoding == fb::PositionEncoding::Learned) {
        v += pos.values[t * d + i];
      }
      x[t * d + i] = v;
    }
  }
  if (s.cfg->embedding_norm) x = layer_norm(m, s.prefix + ".embedding_norm", x, n, d, s.cfg->norm_epsilon);
  return x;
}

// One residual sub-layer: pre-norm x + F(norm(x)), post-norm norm(x + F(x)).
template <typename F>
void residual(const convert::NeutralModel& m, const Stack& s, const std::string& norm, Matrix& x, size_t n, F f) {
  const float eps = s.cfg->norm_epsilon;
  const Matrix in = s.cfg->pre_norm ? layer_norm(m, norm, x, n, s.d, eps) : x;
  const Matrix y = f(in);
  for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
  if (!s.cfg->pre_norm) x = layer_norm(m, norm, x, n, s.d, eps);
}

Matrix ffn(const convert::NeutralModel& m, const Stack& s, const std::string& p, const Matrix& in, size_t n) {
  Matrix inner = linear(m, p + ".ffn.in", in, n);
  for (float& v : inner) v = activate(v, s.cfg->activation);
  if (s.cfg->gated_ffn) {
    const Matrix gate = linear(m, p + ".ffn.gate", in, n);
    for (size_t i = 0; i < inner.size(); ++i) inner[i] *= gate[i];
  }
  return linear(m, p + ".ffn.out", inner, n);
}

}  // namespace

std::vector<float> reference_log_probs(const convert::NeutralModel& m, const std::vector<int32_t>& source,
                                       const std::vector<int32_t>& target_in) {
  const fb::TransformerEncoderDecoderT* cfg = m.config.AsTransformerEncoderDecoder();
  const Stack enc = make_stack(cfg->encoder.get(), "encoder");
  const Stack dec = make_stack(cfg->decoder.get(), "decoder");
  const std::string dec_table = has(m, "decoder.embeddings") ? "decoder.embeddings" : "encoder.embeddings";
  const std::string enc_table = has(m, "encoder.embeddings") ? "encoder.embeddings" : "decoder.embeddings";

  // Encoder.
  const size_t ns = source.size();
  Matrix x = embed(m, enc, enc_table, source);
  for (uint32_t l = 0; l < enc.cfg->num_layers; ++l) {
    const std::string p = names::layer("encoder", static_cast<int>(l));
    residual(m, enc, p + ".self_attn.norm", x, ns, [&](const Matrix& in) {
      const Matrix qkv = linear(m, p + ".self_attn.qkv", in, ns);
      const size_t ld = (enc.heads + 2 * enc.kv_heads) * enc.hd, qd = enc.heads * enc.hd;
      const size_t kvd = enc.kv_heads * enc.hd;
      const Matrix ctx = attention(enc, qkv.data(), ld, ns, qkv.data() + qd, ld, qkv.data() + qd + kvd, ld, ns, false);
      return linear(m, p + ".self_attn.out", ctx, ns);
    });
    residual(m, enc, p + ".ffn.norm", x, ns, [&](const Matrix& in) { return ffn(m, enc, p, in, ns); });
  }
  if (enc.cfg->final_norm) x = layer_norm(m, "encoder.norm", x, ns, enc.d, enc.cfg->norm_epsilon);
  const Matrix memory = x;

  // Decoder over the whole prefix, causal.
  const size_t nt = target_in.size();
  Matrix y = embed(m, dec, dec_table, target_in);
  for (uint32_t l = 0; l < dec.cfg->num_layers; ++l) {
    const std::string p = names::layer("decoder", static_cast<int>(l));
    const size_t qd = dec.heads * dec.hd;
    residual(m, dec, p + ".self_attn.norm", y, nt, [&](const Matrix& in) {
      const Matrix qkv = linear(m, p + ".self_attn.qkv", in, nt);
      const size_t ld = (dec.heads + 2 * dec.kv_heads) * dec.hd, kvd = dec.kv_heads * dec.hd;
      const Matrix ctx = attention(dec, qkv.data(), ld, nt, qkv.data() + qd, ld, qkv.data() + qd + kvd, ld, nt, true);
      return linear(m, p + ".self_attn.out", ctx, nt);
    });
    residual(m, dec, p + ".cross_attn.norm", y, nt, [&](const Matrix& in) {
      const Matrix q = linear(m, p + ".cross_attn.q", in, nt);
      const Matrix kv = linear(m, p + ".cross_attn.kv", memory, ns);
      Stack cross = dec;
      cross.kv_heads = dec.heads;  // cross-attention keys/values have one head per query head
      const Matrix ctx = attention(cross, q.data(), qd, nt, kv.data(), 2 * qd, kv.data() + qd, 2 * qd, ns, false);
      return linear(m, p + ".cross_attn.out", ctx, nt);
    });
    residual(m, dec, p + ".ffn.norm", y, nt, [&](const Matrix& in) { return ffn(m, dec, p, in, nt); });
  }
  if (dec.cfg->final_norm) y = layer_norm(m, "decoder.norm", y, nt, dec.d, dec.cfg->norm_epsilon);
  Matrix logits = cfg->tied_output ? linear(m, "", y, nt, dec_table) : linear(m, "decoder.output", y, nt);

  const size_t V = dec.cfg->vocab_size;
  for (size_t t = 0; t < nt; ++t) {
    float* row = &logits[t * V];
    double max = -1e300, sum = 0;
    for (size_t i = 0; i < V; ++i) max = std::max(max, static_cast<double>(row[i]));
    for (size_t i = 0; i < V; ++i) sum += std::exp(row[i] - max);
    const double lse = max + std::log(sum);
    for (size_t i = 0; i < V; ++i) row[i] = static_cast<float>(row[i] - lse);
  }
  return logits;
}

}  // namespace heed::test
