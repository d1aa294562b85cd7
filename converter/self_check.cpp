#include "self_check.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "heed/generator.h"

namespace heed::convert {
namespace {

// Prompts generated together (the session is planned for them).
constexpr size_t kContinuationBatch = 8;
// Positions a self-check generation may use: longer lines are cut.
constexpr size_t kContinuationContext = 256;

// Each line's prompt ids (no start token: generate feeds it), cut to leave room for `tokens`.
Status continuation_prompts(const Generator& generator, const std::vector<std::string>& lines, size_t tokens,
                            std::vector<std::vector<int32_t>>* prompts) {
  const size_t context = std::min(kContinuationContext, generator.max_context());
  if (context < tokens + 2) return invalid_argument("the model's context is too short for the self-check");
  prompts->assign(lines.size(), {});
  for (size_t i = 0; i < lines.size(); ++i) {
    HEED_RETURN_IF_ERROR(generator.encode(lines[i], &(*prompts)[i]));
    if ((*prompts)[i].size() > context - 1 - tokens) (*prompts)[i].resize(context - 1 - tokens);
  }
  return Status::success();
}

// Generates the prompts [first, last) together into out[first, last).
Status generate_together(Generator* generator, const std::vector<std::vector<int32_t>>& prompts, size_t first,
                         size_t last, const GenerateOptions& options, std::vector<std::vector<int32_t>>* out) {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0}, which;
  for (size_t i = first; i < last; ++i) {
    if (prompts[i].empty()) continue;  // nothing to continue from
    ids.insert(ids.end(), prompts[i].begin(), prompts[i].end());
    offsets.push_back(ids.size());
    which.push_back(i);
  }
  if (which.empty()) return Status::success();
  std::vector<Generation> generated(which.size());
  HEED_RETURN_IF_ERROR(
      generator->generate_batch(TokenBatch{ids.data(), offsets.data(), which.size()}, options, generated.data()));
  for (size_t j = 0; j < which.size(); ++j) {
    const Generation& g = generated[j];
    std::vector<int32_t>& continuation = (*out)[which[j]];
    continuation.assign(g.ids, g.ids + g.length);
    if (g.finished_with_eos) continuation.push_back(generator->eos_id());
  }
  return Status::success();
}

}  // namespace

Status greedy_continuations(const Model& model, const std::vector<std::string>& lines, size_t tokens,
                            std::vector<std::vector<int32_t>>* out) {
  GeneratorOptions options;
  options.positions_needed = kContinuationContext;  // or the model's own limit, when smaller
  options.max_batch = kContinuationBatch;
  std::unique_ptr<Generator> generator;
  HEED_RETURN_IF_ERROR(Generator::create(model, options, &generator));
  std::vector<std::vector<int32_t>> prompts;
  HEED_RETURN_IF_ERROR(continuation_prompts(*generator, lines, tokens, &prompts));
  GenerateOptions greedy;
  greedy.max_new_tokens = tokens;
  out->assign(lines.size(), {});
  for (size_t first = 0; first < lines.size(); first += kContinuationBatch) {
    const size_t last = std::min(lines.size(), first + kContinuationBatch);
    HEED_RETURN_IF_ERROR(generate_together(generator.get(), prompts, first, last, greedy, out));
  }
  return Status::success();
}

namespace {

// Lowest and mean cosine similarity of the rows of `out` and `reference` (one per line).
void compare_embeddings(const std::vector<float>& out, const std::vector<float>& reference, size_t lines,
                        SelfCheck* check) {
  const size_t dimension = out.size() / lines;
  check->lowest_cosine = 1.0;
  double sum = 0;
  for (size_t i = 0; i < lines; ++i) {
    double dot = 0, a2 = 0, b2 = 0;
    for (size_t d = 0; d < dimension; ++d) {
      const double a = out[i * dimension + d], b = reference[i * dimension + d];
      dot += a * b;
      a2 += a * a;
      b2 += b * b;
    }
    const double cosine = a2 > 0 && b2 > 0 ? dot / std::sqrt(a2 * b2) : (a2 == b2 ? 1.0 : 0.0);
    check->lowest_cosine = std::min(check->lowest_cosine, cosine);
    sum += cosine;
  }
  check->mean_cosine = sum / static_cast<double>(lines);
}

double mean_nll(const std::vector<float>& log_probs) {
  double sum = 0;
  for (float p : log_probs) sum -= p;
  return log_probs.empty() ? 0.0 : sum / static_cast<double>(log_probs.size());
}

// Lines continued exactly as the float model does, and the mean share of its leading tokens kept.
void compare_continuations(const std::vector<std::vector<int32_t>>& out,
                           const std::vector<std::vector<int32_t>>& reference, SelfCheck* check) {
  double shares = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const std::vector<int32_t>& a = out[i];
    const std::vector<int32_t>& b = reference[i];
    check->same_continuations += a == b ? 1 : 0;
    const auto differ = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    const size_t kept = static_cast<size_t>(differ.second - b.begin());
    shares += b.empty() ? 1.0 : static_cast<double>(kept) / static_cast<double>(b.size());
  }
  check->matched_prefix = reference.empty() ? 0.0 : shares / static_cast<double>(reference.size());
}

}  // namespace

Status compare_calibration(const CalibrationOutput& converted, const CalibrationOutput& reference, bool encoder,
                           size_t lines, SelfCheck* check) {
  const bool sizes_agree = !converted.values.empty() && converted.values.size() == reference.values.size() &&
                           converted.continuations.size() == reference.continuations.size() &&
                           (!encoder || converted.values.size() % lines == 0);
  if (!sizes_agree) return invalid_argument("self-check of the converted model: outputs of different sizes");
  check->lines = lines;
  check->encoder = encoder;
  if (encoder) {
    compare_embeddings(converted.values, reference.values, lines, check);
    return Status::success();
  }
  check->nll_float = mean_nll(reference.values);
  check->nll_converted = mean_nll(converted.values);
  compare_continuations(converted.continuations, reference.continuations, check);
  return Status::success();
}

}  // namespace heed::convert
