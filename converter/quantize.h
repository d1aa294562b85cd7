// Turns a NeutralModel's weight matrices into the stored dtype: int8 with per-row or per-group
// scales (real = q * scale), float16, or float32. Biases, norms and position tables stay float32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert {

enum class WeightType { kInt8, kFloat16, kFloat32 };

// "int8", "float16", "float32" (also "f16", "fp16", "f32", "fp32", "i8").
Status parse_weight_type(const std::string& text, WeightType* out);
const char* weight_type_name(WeightType type);

struct QuantizeOptions {
  WeightType type = WeightType::kInt8;
  uint32_t group_size = 0;  // int8 only: 0 = one scale per row, else one per N values (N % 4 == 0)
  // int8 with group_size 0: the weights of linear layers (names::is_linear_weight) and the
  // embedding table `tied_table` that the output projection reuses (pack.h tied_output_table)
  // quantized per group of this many values instead, the others per row (activation blocks,
  // convert.h).
  uint32_t linear_group_size = 0;
  std::string tied_table;
};

// What quantization did to one tensor, for `heed convert --report`.
struct TensorReport {
  std::string name;
  std::string stored;          // e.g. "int8 per-row", "float16", "int8 kept from the source"
  double max_abs_error = 0;    // max |x - stored(x)|
  double snr_db = 0;           // 10 log10(sum x^2 / sum (x - stored(x))^2); +inf when exact
};

// Quantizes every `quantizable` tensor of `model` in place:
//   f32 source  -> int8 (adds NAME.scales), float16, or kept float32;
//   int8 source -> kept bit-exactly for int8 (never re-quantized, whatever the group size),
//                  dequantized (q * scale) for float16/float32 (its NAME.scales is dropped).
// Refuses NaN or infinite values in any f32 tensor, naming it. `report` (optional) receives one
// entry per quantizable tensor; `progress` (optional) is called with (done, total).
// A group size that is a multiple of 4 and only for int8 weights.
Status check_quantize_options(const QuantizeOptions& options);

Status quantize_model(NeutralModel* model, const QuantizeOptions& options, std::vector<TensorReport>* report,
                      const std::function<void(size_t, size_t)>& progress = {});

// Symmetric int8 of a row-major [rows, cols] matrix: per row (group_size 0) or per group of
// group_size values of a row. scale = max|x| / 127 (0 for an all-zero group),
// q = round-half-away-from-zero(x / scale) clamped to [-127, 127]. `scales` receives
// rows * ceil(cols / group_size) values (rows when per row).
void quantize_int8(const float* x, size_t rows, size_t cols, uint32_t group_size, int8_t* q, float* scales);

// IEEE half and bfloat16 conversions (round to nearest even; NaN and infinities preserved).
float bf16_to_f32(uint16_t b);

}  // namespace heed::convert
