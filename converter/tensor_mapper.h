// Reading a source's named tensors into the NeutralModel, the same way for every reader of
// safetensors files (Hugging Face Marian, BERT, GPT-2, Llama, PyTorch seq2seq): look a tensor up
// (under an optional name prefix), check its shape, copy it under heed's name, remember what was
// used, and refuse the model when a tensor was left over (nothing is dropped silently). Every fault
// has one message, naming the file and the tensor.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"
#include "safetensors.h"

namespace heed::convert {

// "[2, 3]"
std::string shape_string(const std::vector<uint64_t>& shape);

class TensorMapper {
 public:
  // Source names are `prefix` + the names given below (BERT checkpoints may nest them in "bert.").
  TensorMapper(const SafetensorsFile& file, NeutralModel* out, std::string prefix = "");

  // Source names from here on are `prefix` + name (task heads sit outside a model's "bert." prefix).
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  const std::string& prefix() const { return prefix_; }

  bool has(const std::string& name) const;
  // The tensor, marked used; null when absent.
  const SafetensorsTensor* find(const std::string& name);
  // invalid_file naming the source file.
  Status corrupt(const std::string& what) const;

  // Values of tensor `name`, which must exist with `shape`, as float32.
  Status values(const std::string& name, const std::vector<uint64_t>& shape, std::vector<float>* out);
  // Adds `values` as heed's tensor `dst`.
  void add(const std::string& dst, const std::vector<uint64_t>& shape, const std::vector<float>& values,
           bool quantizable);
  // src [shape] -> dst, reshaped to dst_shape when given.
  Status take(const std::string& src, const std::string& dst, const std::vector<uint64_t>& shape, bool quantizable,
              const std::vector<uint64_t>& dst_shape = {});
  // As take, when src exists.
  Status take_optional(const std::string& src, const std::string& dst, const std::vector<uint64_t>& shape);
  // A Linear layer: src.weight [rows, cols] and src.bias [rows].
  Status take_linear(const std::string& src, const std::string& dst, uint64_t rows, uint64_t cols);
  // Several Linear layers of [rows, cols] stacked row-wise into one (Q, K, V -> qkv).
  Status take_stacked(const std::vector<std::string>& srcs, const std::string& dst, uint64_t rows, uint64_t cols);
  // A LayerNorm: src.weight -> dst.gamma, src.bias -> dst.beta, both [d].
  Status take_norm(const std::string& src, const std::string& dst, uint64_t d);

  // Every tensor of the file was used, except those `ignored` accepts; otherwise the model is
  // refused: "tensor 'X' is not part of <what>; refusing to drop it".
  Status check_all_used(const std::string& what,
                        const std::function<bool(const std::string& name)>& ignored = {}) const;

 private:
  const SafetensorsFile& file_;
  NeutralModel* out_;
  std::string prefix_;
  std::set<std::string> used_;
};

}  // namespace heed::convert
