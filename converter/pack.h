// Reorders int8 weight matrices into the 16x4 packed layout the gemm_i8_packed kernels read
// (kernels.h pack_i8_16x4), so the runtime uses them in place: the .heed file is the packed form.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"
#include "quantize.h"

namespace heed::convert {

// kAuto and kPacked16x4 pack the same tensors (below); kPacked16x4 is the explicit request, which
// the CLI refuses with weights that cannot be packed (float, per-group int8). kRowMajor packs none.
enum class WeightLayout { kAuto, kRowMajor, kPacked16x4 };

// "auto", "row-major", "packed16x4".
Status parse_weight_layout(const std::string& text, WeightLayout* out);
const char* weight_layout_name(WeightLayout layout);

// The embedding table `model`'s output projection reuses (tied_output), or "" when it has none.
std::string tied_output_table(const NeutralModel& model);

// True when `t` can be stored packed: a row-major 2-D int8 matrix with per-row or per-tensor
// scales that a Linear layer reads, i.e. whose name ends in ".weight" (names::is_linear_weight),
// or the embedding table named `tied_table` (tied_output_table): the vocabulary projection is a
// decoding step's largest product, and the runtime gathers embedding rows from the packed layout
// too. Other embeddings stay row-major.
bool packable(const NeutralTensor& t, const std::string& tied_table);

// Packs every packable tensor of `model` in place (unless kRowMajor) and adds its NAME.row_sums
// (int32 [N]). `packed` (optional) receives how many were packed; `report` entries of packed
// tensors get ", packed 16x4" appended; `progress` is called with (done, total).
Status pack_model(NeutralModel* model, WeightLayout layout, size_t* packed, std::vector<TensorReport>* report,
                  const std::function<void(size_t, size_t)>& progress = {});

// Gives every int8 linear weight of `model`, and the embedding table its output projection reuses
// (tied_output_table: the vocabulary projection, whose input has the final norm's wide channels),
// the activation block `block` (0: activations quantized per row; else a multiple of 16 values of
// K with their own scale, schema Tensor.activation_block), before pack_model: a weight quantized
// per group of exactly that size is then packable too, and
// pack_model clears the block of whatever it leaves row-major. Returns how many weights got it.
size_t set_activation_blocks(NeutralModel* model, uint32_t block);

}  // namespace heed::convert
