// Shared by the Transformer tests: building sessions and feeding them whole target prefixes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "heed/step_model.h"
#include "models/step_model_factory.h"

namespace heed::test {

inline std::unique_ptr<StepModel> make_session(const Model& model, const StepModelLimits& limits,
                                               ArenaOptions arena = {}, size_t threads = 1) {
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(model, limits, arena, &session, threads);
  INFO(s.message());
  REQUIRE(s.is_ok());
  return session;
}

// Flattens sources into a TokenBatch (the vectors must outlive its use).
struct BatchStorage {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  TokenBatch batch() const {
    TokenBatch b;
    b.ids = ids.data();
    b.offsets = offsets.data();
    b.size = offsets.size() - 1;
    return b;
  }
};

inline BatchStorage make_batch(const std::vector<std::vector<int32_t>>& sources) {
  BatchStorage s;
  for (const auto& src : sources) {
    s.ids.insert(s.ids.end(), src.begin(), src.end());
    s.offsets.push_back(s.ids.size());
  }
  return s;
}

// Starts `sources` with beam 1 and feeds targets[r][t] to row r at step t (all targets have the
// same length). Returns per row the log-probs of every step, [steps * vocab].
inline std::vector<std::vector<float>> run_prefixes(StepModel& session,
                                                    const std::vector<std::vector<int32_t>>& sources,
                                                    const std::vector<std::vector<int32_t>>& targets) {
  const BatchStorage storage = make_batch(sources);
  const TokenBatch batch = storage.batch();
  const Status s = session.start(&batch, sources.size(), 1);
  INFO(s.message());
  REQUIRE(s.is_ok());
  const size_t rows = sources.size(), V = session.vocab_size(), steps = targets[0].size();
  std::vector<std::vector<float>> out(rows, std::vector<float>(steps * V));
  std::vector<float> log_probs(rows * V);
  std::vector<int32_t> ids(rows);
  for (size_t t = 0; t < steps; ++t) {
    for (size_t r = 0; r < rows; ++r) ids[r] = targets[r][t];
    session.step(ids.data(), rows, t, log_probs.data());
    for (size_t r = 0; r < rows; ++r) {
      std::copy(log_probs.begin() + r * V, log_probs.begin() + (r + 1) * V, out[r].begin() + t * V);
    }
  }
  return out;
}

inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(static_cast<double>(a[i]) - b[i]);
    if (!(d <= m)) m = d;  // NaN propagates as a failure
  }
  return m;
}

}  // namespace heed::test
