#include "rnn/recurrent_cell.h"

namespace heed::rnn {

Status RecurrentCell::load(const Model& model, const std::string& prefix, bool lstm, size_t input,
                           size_t hidden) {
  lstm_ = lstm;
  input_ = input;
  hidden_ = hidden;
  HEED_RETURN_IF_ERROR(ih_.load(model, prefix + ".ih", gates(), input));
  HEED_RETURN_IF_ERROR(hh_.load(model, prefix + ".hh", gates(), hidden));
  return Status::success();
}

void RecurrentCell::input_gates(const kernels::KernelTable& k, const float* x, size_t m, size_t ldx, float* gx,
                                const layers::QuantScratch& q, const threading::ThreadPool* pool) const {
  ih_.forward(k, x, m, ldx, gx, gates(), kernels::Activation::kNone, false, q, pool);
}

void RecurrentCell::update(const kernels::KernelTable& k, const float* gx, float* gh, float* h, float* c,
                           size_t m, const layers::QuantScratch& q, const threading::ThreadPool* pool) const {
  const size_t g = gates();
  hh_.forward(k, h, m, hidden_, gh, g, kernels::Activation::kNone, false, q, pool);
  for (size_t r = 0; r < m; ++r) {
    if (lstm_) {
      k.lstm_cell(gx + r * g, gh + r * g, c + r * hidden_, h + r * hidden_, hidden_);
    } else {
      k.gru_cell(gx + r * g, gh + r * g, h + r * hidden_, hidden_);
    }
  }
}

}  // namespace heed::rnn
