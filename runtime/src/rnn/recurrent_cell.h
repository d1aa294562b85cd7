// One LSTM or GRU cell (one layer, one direction): gx = W_ih x + b_ih, gh = W_hh h + b_hh as
// GEMMs over the weights in place (f32, f16 or int8), then the kernel table's gate math.
#pragma once

#include <cstddef>
#include <string>

#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/status.h"
#include "layers/linear.h"

namespace heed::rnn {

class RecurrentCell {
 public:
  // Loads PREFIX.ih.{weight,bias} [G hidden, input] and PREFIX.hh.{weight,bias} [G hidden, hidden].
  Status load(const Model& model, const std::string& prefix, bool lstm, size_t input, size_t hidden);

  size_t gates() const { return (lstm_ ? 4 : 3) * hidden_; }
  size_t input() const { return input_; }
  size_t hidden() const { return hidden_; }
  bool lstm() const { return lstm_; }

  // The input half for m rows at once: gx[m, gates()] = x W_ih^T + b_ih.
  // pool (optional) splits the GEMMs' output rows between threads (bitwise the same result).
  void input_gates(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, float* gx,
                   const layers::QuantScratch& q, const threading::ThreadPool* pool = nullptr) const;
  // The recurrent half and the gate math for m rows: h[m, hidden] (and c for LSTM) updated in
  // place from gx[m, gates()]; gh is scratch [m, gates()]. Row strides are hidden().
  void update(const kernels::KernelTable& k, const float* gx, float* gh, float* h, float* c, size_t m,
              const layers::QuantScratch& q, const threading::ThreadPool* pool = nullptr) const;

 private:
  bool lstm_ = true;
  size_t input_ = 0, hidden_ = 0;
  layers::Linear ih_, hh_;
};

}  // namespace heed::rnn
