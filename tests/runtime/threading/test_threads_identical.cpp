// Sessions with 1, 2 and 3 threads must compute exactly the same thing: every output of a split
// GEMM or attention loop is produced by one task with the single-thread arithmetic. Each run feeds
// the same decoding script (greedy tokens chosen from the session's own log-probs, beam reorders)
// and the runs are compared bit for bit: log-probabilities of every step and the chosen tokens.
// Run twice: with the default split threshold (real models split only their big GEMMs) and with
// the threshold at 1, which splits every loop of even the tiny models.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "busy_cores.h"
#include "generate_fixture.h"
#include "heed/decoding.h"
#include "models/step_model_factory.h"
#include "session_helpers.h"
#include "threading/thread_pool.h"
#include "tiny_model.h"
#include "zoo_fixture.h"

namespace heed::test {
namespace {

struct Trace {
  std::vector<float> log_probs;  // every step's [rows, vocab], concatenated
  std::vector<int32_t> tokens;   // the argmax of every row at every step
};

// Starts `sources` (null for decoder-only models) with `beam` rows per sentence and runs `steps`
// greedy steps from the start token; every other step reorders the beam rows (parent = first row
// of the sentence), as beam search would.
Trace run(const Model& model, const StepModelLimits& limits, size_t threads, const TokenBatch* sources,
          size_t batch, size_t beam, size_t steps) {
  std::unique_ptr<StepModel> m;
  const Status created = create_step_model(model, limits, {}, &m, threads);
  INFO(created.message());
  REQUIRE(created.is_ok());
  REQUIRE(m->start(sources, batch, beam).is_ok());
  const size_t rows = batch * beam, V = m->vocab_size();
  std::vector<int32_t> ids(rows, m->bos_id() >= 0 ? m->bos_id() : 1);
  std::vector<int32_t> parents(rows);
  for (size_t r = 0; r < rows; ++r) parents[r] = static_cast<int32_t>(r / beam * beam);
  std::vector<float> lp(rows * V);
  Trace t;
  for (size_t step = 0; step < steps; ++step) {
    m->step(ids.data(), rows, step, lp.data());
    t.log_probs.insert(t.log_probs.end(), lp.begin(), lp.end());
    for (size_t r = 0; r < rows; ++r) {
      size_t best = 0;
      for (size_t v = 1; v < V; ++v) best = lp[r * V + v] > lp[r * V + best] ? v : best;
      // Rows of one sentence take different tokens so that the beam rows really differ.
      ids[r] = static_cast<int32_t>((best + r % beam) % V);
      t.tokens.push_back(static_cast<int32_t>(best));
    }
    if (step % 2 == 1 && beam > 1) m->reorder(parents.data(), rows);
  }
  return t;
}

void check_identical(const Model& model, const StepModelLimits& limits, const TokenBatch* sources, size_t batch,
                     size_t beam, size_t steps) {
  for (size_t min_work : {threading::kMinTaskWork, size_t{1}}) {
    threading::set_min_task_work(min_work);
    const Trace one = run(model, limits, 1, sources, batch, beam, steps);
    for (size_t threads : {2, 3}) {
      INFO("threads " << threads << ", split threshold " << min_work);
      const Trace many = run(model, limits, threads, sources, batch, beam, steps);
      CHECK(many.tokens == one.tokens);
      REQUIRE(many.log_probs.size() == one.log_probs.size());
      CHECK(std::memcmp(many.log_probs.data(), one.log_probs.data(), one.log_probs.size() * sizeof(float)) == 0);
    }
  }
  threading::set_min_task_work(threading::kMinTaskWork);
}

TEST_CASE("Transformer encoder-decoder: 1, 2 and 3 threads give identical log-probs and tokens") {
  TinyOptions f32;
  f32.d_model = 40;  // 40 output rows: tiles of 16 with a ragged last tile
  f32.num_heads = 5;
  f32.ffn_dim = 72;
  f32.target_vocab = 53;
  TinyOptions i8 = f32;
  i8.quantize = true;
  i8.gated_ffn = true;
  i8.num_heads = 4;
  i8.num_kv_heads = 2;
  TinyOptions f16 = f32;
  f16.quantize = true;
  f16.quantize_options.type = convert::WeightType::kFloat16;
  TinyOptions grouped = i8;
  grouped.quantize_options.group_size = 8;
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11}, {5, 6}, {7, 8, 9, 10}});
  const TokenBatch batch = storage.batch();
  for (const TinyOptions* o : {&f32, &i8, &f16, &grouped}) {
    const LoadedModel loaded = load_model(make_tiny_model(*o));
    check_identical(*loaded.model, StepModelLimits{3, 3, 12, 10}, &batch, 3, 3, 10);
  }
  // f32 on each GEMM backend (auto above: XNNPACK for the 9-row steps, heed's gemm_f32 below 4).
  const LoadedModel loaded = load_model(make_tiny_model(f32));
  for (Backend backend : {Backend::kHeed, Backend::kXnnpack}) {
    if (backend == Backend::kXnnpack && !built_with_xnnpack()) continue;
    INFO("backend " << backend_name(backend));
    StepModelLimits limits{3, 3, 12, 10};
    limits.backend = backend;
    check_identical(*loaded.model, limits, &batch, 3, 3, 10);
  }
}

TEST_CASE("decoder-only (stories260K: RoPE, GQA, SwiGLU): 1, 2 and 3 threads identical") {
  for (auto type : {convert::WeightType::kFloat32, convert::WeightType::kInt8}) {
    const std::unique_ptr<Model> model = open_model(stories260k_heed(type));
    check_identical(*model, StepModelLimits{1, 2, 0, 24}, nullptr, 1, 2, 24);
  }
}

TEST_CASE("RNN seq2seq (attention zoo): 1, 2 and 3 threads identical") {
  const Sources src({{10, 11, 12, 13}, {20, 21, 22, 23, 24, 25, 26}});
  const TokenBatch b = src.batch();
  for (const char* variant : {"luong_general", "bahdanau_gru_additive"}) {
    for (auto type : {convert::WeightType::kFloat32, convert::WeightType::kInt8}) {
      INFO(variant);
      const ZooModel z = load_zoo(variant, type);
      check_identical(*z.model, StepModelLimits{2, 2, 16, 10}, &b, 2, 2, 10);
    }
  }
}

// Every hypothesis of a batched beam search (tokens, log-probs, scores) with `threads` threads:
// the engine ranks each sentence's candidates on the session's threads (StepModel::parallel_for).
std::vector<std::vector<float>> beam_results(const Model& model, size_t threads, const TokenBatch& batch,
                                             const DecodeOptions& o) {
  const auto session = make_session(model, StepModelLimits{batch.size, o.beam_size, 12, o.max_length}, {}, threads);
  std::unique_ptr<DecodingEngine> engine;
  REQUIRE(DecodingEngine::create(session.get(), DecodingLimits{}, &engine).is_ok());
  DecodeOutput out;
  REQUIRE(engine->decode(&batch, batch.size, o, nullptr, &out).is_ok());
  std::vector<std::vector<float>> results;
  for (size_t i = 0; i < batch.size; ++i) {
    for (size_t k = 0; k < out.count(i); ++k) {
      const Hypothesis& h = out.at(i, k);
      std::vector<float> r(h.ids, h.ids + h.length);  // ids are small: exact as floats
      r.insert(r.end(), h.token_log_probs, h.token_log_probs + h.num_log_probs);
      r.push_back(h.score);
      results.push_back(r);
    }
  }
  return results;
}

// A tiny int8 model with ragged 16-row tiles (40 outputs) and a 53-token vocabulary.
TinyOptions tiny_int8() {
  TinyOptions i8;
  i8.d_model = 40;
  i8.num_heads = 5;
  i8.ffn_dim = 72;
  i8.target_vocab = 53;
  i8.quantize = true;
  return i8;
}

TEST_CASE("beam search through the decoding engine: 1, 2 and 3 threads give identical hypotheses") {
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11}, {5, 6}, {7, 8, 9, 10}, {9}, {4, 4, 4}});
  const TokenBatch batch = storage.batch();
  const LoadedModel loaded = load_model(make_tiny_model(tiny_int8()));
  DecodeOptions plain;
  plain.beam_size = 3;
  plain.n_best = 3;
  plain.max_length = 10;
  DecodeOptions controls = plain;  // rows renormalized, and logits penalized, inside the ranking
  controls.min_length = 4;
  controls.controls.repetition_penalty = 1.3f;
  for (const DecodeOptions* o : {&plain, &controls}) {
    const auto one = beam_results(*loaded.model, 1, batch, *o);
    for (size_t threads : {2, 3}) {
      INFO(threads << " threads, min_length " << o->min_length);
      CHECK(beam_results(*loaded.model, threads, batch, *o) == one);
    }
  }
}

// The contention case: every core is kept busy by other threads while sessions of 1, 2 and 3
// threads decode (workers get descheduled mid-job, jobs fall back to the caller): still the same
// log-probabilities and tokens, bit for bit.
TEST_CASE("every core busy with another program: 1, 2 and 3 threads still identical") {
  const BusyCores busy;
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11}, {5, 6}, {7, 8, 9, 10}});
  const TokenBatch batch = storage.batch();
  const LoadedModel loaded = load_model(make_tiny_model(tiny_int8()));
  check_identical(*loaded.model, StepModelLimits{3, 3, 12, 10}, &batch, 3, 3, 10);
}

TEST_CASE("thread counts: 0 is one per core, above 256 is refused with a clear error") {
  const LoadedModel loaded = load_model(make_tiny_model(TinyOptions{}));
  std::unique_ptr<StepModel> m;
  CHECK(create_step_model(*loaded.model, StepModelLimits{1, 1, 4, 4}, {}, &m, 0).is_ok());
  const Status s = create_step_model(*loaded.model, StepModelLimits{1, 1, 4, 4}, {}, &m, 257);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "threads 257 is above the limit of 256");
  const Status spin = create_step_model(*loaded.model, StepModelLimits{1, 1, 4, 4}, {}, &m, {2, 1000001});
  CHECK(spin.code() == StatusCode::kInvalidArgument);
  CHECK(spin.message() == "spin budget 1000001 us is above the limit of 1000000 us");
  ArenaReport one, three;
  REQUIRE(plan_step_model_arena(*loaded.model, StepModelLimits{1, 1, 4, 4}, &one, 1).is_ok());
  REQUIRE(plan_step_model_arena(*loaded.model, StepModelLimits{1, 1, 4, 4}, &three, 3).is_ok());
  CHECK(three.arena_bytes >= one.arena_bytes);  // per-task attention scores
}

#if defined(__x86_64__) && defined(__linux__)
// One per physical core: the distinct (package, core) pairs of the online CPUs in sysfs, counted
// independently of cpuinfo (SMT siblings share a pair). x86 only: on ARM hosts under qemu-user sysfs
// describes the build machine, not the emulated CPU.
TEST_CASE("thread counts: 0 is one thread per physical core (sysfs topology)") {
  std::set<std::pair<std::string, std::string>> cores;
  for (size_t cpu = 0; cpu < 4096; ++cpu) {
    const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    std::ifstream package(dir + "physical_package_id"), core(dir + "core_id");
    if (!package || !core) continue;
    std::string p, c;
    package >> p;
    core >> c;
    cores.emplace(p, c);
  }
  if (cores.empty()) {  // no sysfs topology (a container without /sys): nothing to compare with
    WARN("no CPU topology in /sys/devices/system/cpu: the physical core count is not checked");
    return;
  }
  size_t threads = 0;
  REQUIRE(threading::resolve_threads(0, &threads).is_ok());
  CHECK(threads == std::min(cores.size(), threading::kMaxThreads));
}
#endif

}  // namespace
}  // namespace heed::test
