#include "quantize.h"

#include "heed/kernels.h"
#include "heed_format/quantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "heed_format/tensor_names.h"

namespace heed::convert {

Status parse_weight_type(const std::string& text, WeightType* out) {
  if (text == "int8" || text == "i8") {
    *out = WeightType::kInt8;
  } else if (text == "float16" || text == "f16" || text == "fp16") {
    *out = WeightType::kFloat16;
  } else if (text == "float32" || text == "f32" || text == "fp32") {
    *out = WeightType::kFloat32;
  } else {
    return invalid_argument("unknown weight type '" + text + "' (expected int8, float16 or float32)");
  }
  return Status::success();
}

const char* weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::kInt8: return "int8";
    case WeightType::kFloat16: return "float16";
    case WeightType::kFloat32: return "float32";
  }
  return "?";
}

float bf16_to_f32(uint16_t b) {
  const uint32_t f = static_cast<uint32_t>(b) << 16;
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

void quantize_int8(const float* x, size_t rows, size_t cols, uint32_t group_size, int8_t* q, float* scales) {
  const size_t group = group_size == 0 ? cols : group_size;
  const size_t groups = cols == 0 ? 0 : (cols + group - 1) / group;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t g = 0; g < groups; ++g) {
      const size_t begin = g * group, end = std::min(cols, begin + group);
      const float* xr = x + r * cols;
      int8_t* qr = q + r * cols;
      float amax = 0;
      for (size_t c = begin; c < end; ++c) amax = std::max(amax, std::fabs(xr[c]));
      const float scale = amax / 127.0f;
      scales[r * groups + g] = scale;
      for (size_t c = begin; c < end; ++c) {
        float v = scale == 0 ? 0.0f : std::round(xr[c] / scale);
        v = std::min(127.0f, std::max(-127.0f, v));
        qr[c] = static_cast<int8_t>(v);
      }
    }
  }
}

namespace {

const float* as_f32(const NeutralTensor& t) { return reinterpret_cast<const float*>(t.bytes.data()); }

Status check_finite(const NeutralTensor& t) {
  const float* x = as_f32(t);
  const size_t n = t.bytes.size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) {
      return invalid_argument("tensor '" + t.name + "' has a " + (std::isnan(x[i]) ? "NaN" : "infinite") +
                              " value at element " + std::to_string(i));
    }
  }
  return Status::success();
}

// Error statistics of `stored` against the original `x`.
TensorReport measure(const std::string& name, const std::string& stored_as, const float* x,
                     const std::vector<float>& stored) {
  TensorReport r;
  r.name = name;
  r.stored = stored_as;
  double signal = 0, noise = 0;
  for (size_t i = 0; i < stored.size(); ++i) {
    const double e = static_cast<double>(x[i]) - stored[i];
    r.max_abs_error = std::max(r.max_abs_error, std::fabs(e));
    signal += static_cast<double>(x[i]) * x[i];
    noise += e * e;
  }
  r.snr_db = noise == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(signal / noise);
  return r;
}

std::vector<uint8_t> to_bytes(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  return std::vector<uint8_t>(p, p + size);
}

// Real values of an int8 tensor from its scales (real = q * scale).
Status dequantize(const NeutralTensor& t, const NeutralTensor& scales, std::vector<float>* out) {
  const size_t rows = t.shape.empty() ? 1 : t.shape[0];
  const size_t n = t.bytes.size();
  const size_t cols = rows == 0 ? 0 : n / rows;
  const float* s = as_f32(scales);
  const size_t num_scales = scales.bytes.size() / sizeof(float);
  const size_t groups = format::groups_per_row(t.quantization, cols, t.group_size);
  const uint64_t needed = format::scale_count(t.quantization, rows, cols, t.group_size);
  if (needed == 0 || num_scales < needed) return invalid_argument("tensor '" + t.name + "' has too few scales");
  out->resize(n);
  const int8_t* q = reinterpret_cast<const int8_t*>(t.bytes.data());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const float scale = s[format::scale_index(t.quantization, r, c, groups, t.group_size)];
      (*out)[r * cols + c] = static_cast<float>(q[r * cols + c]) * scale;
    }
  }
  return Status::success();
}

}  // namespace

Status check_quantize_options(const QuantizeOptions& options) {
  if (options.group_size != 0 && (options.group_size % 4 != 0)) {
    return invalid_argument("group size " + std::to_string(options.group_size) + " is not a multiple of 4");
  }
  if (options.group_size != 0 && options.type != WeightType::kInt8) {
    return invalid_argument("a group size only applies to int8 weights");
  }
  return Status::success();
}

namespace {

// int8 sources become floats again when float weights are asked for: dequantized first, while
// every scales tensor is still in place. The names of the scales no longer needed go to *dropped.
Status dequantize_int8_sources(NeutralModel* model, std::vector<std::string>* dropped) {
  for (auto& t : model->tensors) {
    if (!(t.quantizable && t.dtype == fb::DType::I8)) continue;
    const NeutralTensor* scales = model->find(t.scales);
    if (!scales) return invalid_argument("tensor '" + t.name + "' has no scales tensor '" + t.scales + "'");
    std::vector<float> real;
    HEED_RETURN_IF_ERROR(dequantize(t, *scales, &real));
    dropped->push_back(t.scales);
    t.dtype = fb::DType::F32;
    t.quantization = fb::Quantization::None;
    t.group_size = 0;
    t.scales.clear();
    t.bytes = to_bytes(real.data(), real.size() * sizeof(float));
  }
  return Status::success();
}

Status to_float16(NeutralTensor* t, std::vector<TensorReport>* report) {
  const float* x = as_f32(*t);
  std::vector<uint16_t> h(t->num_elements());
  std::vector<float> back(h.size());
  for (size_t k = 0; k < h.size(); ++k) {
    h[k] = kernels::f32_to_f16_value(x[k]);
    back[k] = kernels::f16_to_f32_value(h[k]);
    if (!std::isfinite(back[k])) {
      return invalid_argument("tensor '" + t->name + "' has value " + std::to_string(x[k]) + " beyond the float16 range");
    }
  }
  if (report) report->push_back(measure(t->name, "float16", x, back));
  t->dtype = fb::DType::F16;
  t->bytes = to_bytes(h.data(), h.size() * sizeof(uint16_t));
  return Status::success();
}

// The matrix as int8 with per-row (group_size 0) or per-group scales; returns the scales tensor.
NeutralTensor to_int8(NeutralTensor* t, uint32_t group_size, std::vector<TensorReport>* report) {
  const size_t rows = t->shape[0], cols = t->shape[1];
  const float* x = as_f32(*t);
  const uint32_t group = group_size >= cols ? 0 : group_size;
  const size_t groups = group == 0 ? 1 : (cols + group - 1) / group;
  std::vector<int8_t> q(rows * cols);
  std::vector<float> scales(rows * groups);
  quantize_int8(x, rows, cols, group, q.data(), scales.data());
  if (report) {
    std::vector<float> back(q.size());
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < cols; ++c) back[r * cols + c] = q[r * cols + c] * scales[r * groups + (group ? c / group : 0)];
    report->push_back(measure(t->name, group ? "int8 per-group " + std::to_string(group) : "int8 per-row", x, back));
  }
  NeutralTensor s;
  s.name = names::scales(t->name);
  s.shape = group ? std::vector<uint32_t>{static_cast<uint32_t>(rows), static_cast<uint32_t>(groups)}
                  : std::vector<uint32_t>{static_cast<uint32_t>(rows)};
  s.bytes = to_bytes(scales.data(), scales.size() * sizeof(float));
  t->dtype = fb::DType::I8;
  t->quantization = group ? fb::Quantization::PerGroup : fb::Quantization::PerRow;
  t->group_size = group;
  t->scales = s.name;
  t->bytes = to_bytes(q.data(), q.size());
  return s;
}

// One quantizable matrix in the requested weight type, appended to `out` (with its scales).
Status quantize_matrix(NeutralTensor& t, const QuantizeOptions& options, std::vector<TensorReport>* report,
                       std::vector<NeutralTensor>* out) {
  if (t.dtype == fb::DType::I8) {
    if (report) report->push_back({t.name, "int8 kept from the source", 0, std::numeric_limits<double>::infinity()});
    out->push_back(std::move(t));
    return Status::success();
  }
  if (t.dtype != fb::DType::F32) {
    return invalid_argument("tensor '" + t.name + "' is " + fb::EnumNameDType(t.dtype) +
                            "; the quantizer expects float32 or int8 input");
  }
  switch (options.type) {
    case WeightType::kFloat32:
      if (report) report->push_back({t.name, "float32", 0, std::numeric_limits<double>::infinity()});
      break;
    case WeightType::kFloat16:
      HEED_RETURN_IF_ERROR(to_float16(&t, report));
      break;
    case WeightType::kInt8: {
      const bool linear =
          options.linear_group_size != 0 && (names::is_linear_weight(t.name) || t.name == options.tied_table);
      NeutralTensor scales = to_int8(&t, linear ? options.linear_group_size : options.group_size, report);
      out->push_back(std::move(t));
      out->push_back(std::move(scales));
      return Status::success();
    }
  }
  out->push_back(std::move(t));
  return Status::success();
}

}  // namespace

Status quantize_model(NeutralModel* model, const QuantizeOptions& options, std::vector<TensorReport>* report,
                      const std::function<void(size_t, size_t)>& progress) {
  HEED_RETURN_IF_ERROR(check_quantize_options(options));
  for (const auto& t : model->tensors) {
    if (t.dtype == fb::DType::F32) HEED_RETURN_IF_ERROR(check_finite(t));
  }
  std::vector<std::string> dropped;
  if (options.type != WeightType::kInt8) HEED_RETURN_IF_ERROR(dequantize_int8_sources(model, &dropped));
  std::vector<NeutralTensor> out;
  out.reserve(model->tensors.size() * 2);
  const size_t total = model->tensors.size();
  for (size_t i = 0; i < total; ++i) {
    NeutralTensor& t = model->tensors[i];
    if (progress) progress(i, total);
    if (t.quantizable && t.shape.size() == 2) {
      HEED_RETURN_IF_ERROR(quantize_matrix(t, options, report, &out));
    } else {
      out.push_back(std::move(t));
    }
  }
  if (!dropped.empty()) {
    out.erase(std::remove_if(out.begin(), out.end(),
                             [&](const NeutralTensor& t) {
                               return std::find(dropped.begin(), dropped.end(), t.name) != dropped.end();
                             }),
              out.end());
  }
  model->tensors = std::move(out);
  if (progress) progress(total, total);
  return Status::success();
}

}  // namespace heed::convert
