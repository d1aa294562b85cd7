// Bad models, bad limits and bad calls: clear errors with a code, never a crash.
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "session_helpers.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

Status try_create(const convert::NeutralModel& neutral, std::unique_ptr<StepModel>* session,
                  LoadedModel* keep) {
  *keep = load_model(neutral);
  return create_step_model(*keep->model, StepModelLimits{2, 2, 8, 8}, ArenaOptions{}, session);
}

TEST_CASE("a missing required tensor is named") {
  convert::NeutralModel neutral = make_tiny_model(TinyOptions{});
  const std::string name = "decoder.layers.1.ffn.out.weight";
  for (size_t i = 0; i < neutral.tensors.size(); ++i) {
    if (neutral.tensors[i].name == name) neutral.tensors.erase(neutral.tensors.begin() + static_cast<long>(i));
  }
  std::unique_ptr<StepModel> session;
  LoadedModel keep;
  const Status s = try_create(neutral, &session, &keep);
  CHECK_FALSE(s.is_ok());
  CHECK(s.message().find(name) != std::string::npos);
  CHECK(session == nullptr);
}

TEST_CASE("a tensor with the wrong shape is named with both shapes") {
  convert::NeutralModel neutral = make_tiny_model(TinyOptions{});
  convert::NeutralTensor* t = neutral.find("encoder.layers.0.self_attn.qkv.weight");
  REQUIRE(t != nullptr);
  t->shape = {16, 48};  // transposed: [48, 16] expected
  std::unique_ptr<StepModel> session;
  LoadedModel keep;
  const Status s = try_create(neutral, &session, &keep);
  CHECK(s.code() == StatusCode::kInvalidFile);
  CHECK(s.message().find("encoder.layers.0.self_attn.qkv.weight") != std::string::npos);
  CHECK(s.message().find("[48, 16]") != std::string::npos);
}

TEST_CASE("a family without a StepModel is refused by name") {
  convert::NeutralModel neutral;
  fb::TransformerEncoderOnlyT cfg;
  cfg.encoder = std::make_unique<fb::TransformerStackT>();
  cfg.encoder->num_layers = 1;
  cfg.encoder->d_model = 8;
  cfg.encoder->num_heads = 2;
  cfg.encoder->ffn_dim = 8;
  cfg.encoder->vocab_size = 5;
  neutral.config.Set(std::move(cfg));
  std::vector<float> e(40, 0.5f);
  neutral.add_f32("encoder.embeddings", {5, 8}, e.data());
  const LoadedModel loaded = load_model(neutral);
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(*loaded.model, StepModelLimits{1, 1, 4, 4}, ArenaOptions{}, &session);
  CHECK(s.code() == StatusCode::kUnsupportedModel);
  CHECK(s.message().find("TransformerEncoderOnly") != std::string::npos);
}

TEST_CASE("zero limits are refused") {
  const LoadedModel loaded = load_model(make_tiny_model(TinyOptions{}));
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(*loaded.model, StepModelLimits{1, 0, 4, 4}, ArenaOptions{}, &session);
  CHECK(s.code() == StatusCode::kInvalidArgument);
}

TEST_CASE("limits whose arena cannot be addressed are refused") {
  const LoadedModel loaded = load_model(make_tiny_model(TinyOptions{}));
  ArenaReport report;
  const size_t huge = static_cast<size_t>(-1) / 4;
  const Status s = plan_step_model_arena(*loaded.model, StepModelLimits{huge, 4, 4, 4}, &report);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("too large") != std::string::npos);
}

TEST_CASE("learned positions bound the session's lengths") {
  TinyOptions o;
  o.positions = fb::PositionEncoding::Learned;
  o.max_positions = 6;
  const LoadedModel loaded = load_model(make_tiny_model(o));
  std::unique_ptr<StepModel> session;
  const Status s = create_step_model(*loaded.model, StepModelLimits{1, 1, 4, 7}, ArenaOptions{}, &session);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("max_target_len") != std::string::npos);
}

TEST_CASE("a caller-provided arena: too small names the size, large enough gives identical results") {
  const convert::NeutralModel neutral = make_tiny_model(TinyOptions{});
  const LoadedModel loaded = load_model(neutral);
  const StepModelLimits limits{2, 2, 8, 6};
  ArenaReport report;
  REQUIRE(plan_step_model_arena(*loaded.model, limits, &report).is_ok());
  REQUIRE(report.arena_bytes > 0);

  void* memory = ::operator new(report.arena_bytes, std::align_val_t(kArenaAlignment));
  std::unique_ptr<StepModel> session;
  Status s = create_step_model(*loaded.model, limits, ArenaOptions{memory, report.arena_bytes - 64}, &session);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find(std::to_string(report.arena_bytes)) != std::string::npos);
  CHECK(session == nullptr);

  s = create_step_model(*loaded.model, limits, ArenaOptions{memory, report.arena_bytes}, &session);
  INFO(s.message());
  REQUIRE(s.is_ok());
  auto owned = make_session(*loaded.model, limits);
  const std::vector<std::vector<int32_t>> sources = {{3, 4, 5, 6}, {7, 8}};
  const std::vector<std::vector<int32_t>> targets = {{1, 5, 6, 7}, {1, 3, 3, 9}};
  const auto a = run_prefixes(*session, sources, targets);
  const auto b = run_prefixes(*owned, sources, targets);
  CHECK(max_abs_diff(a[0], b[0]) == 0.0);
  CHECK(max_abs_diff(a[1], b[1]) == 0.0);
  session.reset();
  ::operator delete(memory, std::align_val_t(kArenaAlignment));
}

TEST_CASE("start() refuses inputs beyond the limits or the vocabulary, with codes") {
  const LoadedModel loaded = load_model(make_tiny_model(TinyOptions{}));
  auto session = make_session(*loaded.model, StepModelLimits{2, 2, 4, 4});
  BatchStorage too_long = make_batch({{1, 2, 3, 4, 5}});
  TokenBatch b = too_long.batch();
  CHECK(session->start(&b, 1, 1).code() == StatusCode::kLimitExceeded);
  BatchStorage bad_id = make_batch({{1, 23}});
  b = bad_id.batch();
  Status s = session->start(&b, 1, 1);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("23") != std::string::npos);
  BatchStorage ok = make_batch({{1, 2}});
  b = ok.batch();
  CHECK(session->start(&b, 1, 3).code() == StatusCode::kLimitExceeded);
  CHECK(session->start(&b, 2, 1).code() == StatusCode::kInvalidArgument);  // batch != sources->size
  CHECK(session->start(nullptr, 1, 1).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("invalid step() calls leave NaN instead of crashing; the session still works after") {
  const LoadedModel loaded = load_model(make_tiny_model(TinyOptions{}));
  auto session = make_session(*loaded.model, StepModelLimits{1, 2, 4, 3});
  const size_t V = session->vocab_size();
  std::vector<float> lp(2 * V, 0.0f);
  int32_t ids[2] = {1, 1};
  session->step(ids, 1, 0, lp.data());  // not started
  CHECK(std::isnan(lp[0]));
  BatchStorage src = make_batch({{3, 4}});
  TokenBatch b = src.batch();
  REQUIRE(session->start(&b, 1, 2).is_ok());
  session->step(ids, 2, 1, lp.data());  // skips step 0
  CHECK(std::isnan(lp[V]));
  int32_t bad[2] = {1, 19};
  session->step(bad, 2, 0, lp.data());  // id outside the target vocabulary
  CHECK(std::isnan(lp[0]));
  session->step(ids, 2, 0, lp.data());
  CHECK(std::isfinite(lp[0]));
  int32_t cross[2] = {0, 0};
  session->reorder(cross, 2);  // fine: both rows in sentence 0
  int32_t out_of_range[2] = {0, 7};
  session->reorder(out_of_range, 2);  // ignored
  session->step(ids, 2, 1, lp.data());
  session->step(ids, 2, 2, lp.data());
  CHECK(std::isfinite(lp[V]));
  session->step(ids, 2, 3, lp.data());  // beyond max_target_len
  CHECK(std::isnan(lp[V]));
}

}  // namespace
}  // namespace heed::test
