#include "outliers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "heed/embedder.h"
#include "heed/generator.h"
#include "heed/model.h"
#include "heed_format/quantization.h"
#include "heed_writer.h"
#include "source_files.h"
#include "layers/linear.h"

namespace heed::convert {

const std::vector<std::string>& builtin_calibration_lines() {
  static const std::vector<std::string> lines = {
      "Hello",
      "Thank you very much",
      "Where is the station?",
      "It is raining again today.",
      "Please close the window before you leave.",
      "The committee will publish its report on Monday morning.",
      "She bought three apples, a loaf of bread and some cheese at the market.",
      "How do I reset my password if I no longer have access to my email account?",
      "The river flooded the lower part of the town after a week of heavy rain.",
      "Researchers found that regular exercise improves sleep quality in older adults.",
      "The new bridge, which took six years to build, opened to traffic last night.",
      "Can you recommend a good restaurant near the old harbour?",
      "Our team lost the final by a single goal scored in the last minute of extra time.",
      "The central bank raised interest rates for the third time this year to fight inflation.",
      "Turn left at the second traffic light and the museum is on your right.",
      "A small earthquake shook the region on Tuesday, but no damage was reported.",
      "The software update fixes several security problems and improves battery life.",
      "My grandmother grew tomatoes, beans and potatoes in the garden behind her house.",
      "Scientists have discovered a new species of frog in the rainforest of Ecuador.",
      "The price of the ticket includes breakfast and a guided tour of the castle.",
      "If the weather stays dry, the concert will take place in the park as planned.",
      "He apologised for the delay and promised that the parcel would arrive tomorrow.",
      "The government announced a plan to build ten thousand affordable homes by 2030.",
      "Children under twelve must be accompanied by an adult at all times.",
      "The film tells the story of a young musician who moves to the city to find work.",
      "Patients should take one tablet twice a day with food and plenty of water.",
      "What time does the last train to the airport leave on Sundays?",
      "The company reported higher profits thanks to strong sales in Asia and Europe.",
      "After the meeting, the two leaders signed an agreement on trade and energy.",
      "Mix the flour and the sugar, then add the eggs one at a time while stirring.",
      "The library is closed for renovation until the end of the month.",
      "Although the road was narrow and steep, the bus reached the village safely before dark.",
  };
  return lines;
}

Status read_calibration_lines(const std::string& path, std::vector<std::string>* lines) {
  std::string text;  // the converter's one checked reader: regular files only, size capped
  const Status read = read_text(path, &text);
  if (!read) return invalid_argument("cannot read the calibration file: " + read.message());
  lines->clear();
  size_t start = 0;
  while (start < text.size() && lines->size() < 1000) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines->push_back(std::move(line));
    start = end + 1;
  }
  if (lines->empty()) return invalid_argument("the calibration file '" + path + "' has no text lines");
  return Status::success();
}

namespace {

// Positions a calibration line may use (longer lines are cut): calibration looks at activations,
// not at long-range attention.
constexpr size_t kCalibrationContext = 256;

// The largest |x| of every input channel each linear layer saw, by weight name.
class ChannelRanges : public layers::InputRecorder {
 public:
  void record(const std::string& weight, const float* x, size_t m, size_t in, size_t ldx) override {
    std::vector<float>& range = ranges_[weight];
    range.resize(in, 0.0f);
    for (size_t r = 0; r < m; ++r)
      for (size_t c = 0; c < in; ++c) range[c] = std::max(range[c], std::fabs(x[r * ldx + c]));
  }
  const std::map<std::string, std::vector<float>>& ranges() const { return ranges_; }

 private:
  std::map<std::string, std::vector<float>> ranges_;
};

// The loaded copy of a converter's model: serialized and read back as a file would be.
Status load_model(const NeutralModel& model, std::vector<uint8_t>* bytes, std::unique_ptr<Model>* loaded) {
  HEED_RETURN_IF_ERROR(serialize_heed(model, bytes));
  return Model::from_bytes(bytes->data(), bytes->size(), loaded);
}

// An encoder's mean-pooled embeddings of `lines`.
Status embed_lines(const Model& model, const std::vector<std::string>& lines, std::vector<float>* out) {
  std::unique_ptr<Embedder> embedder;
  HEED_RETURN_IF_ERROR(Embedder::create(model, EmbedderOptions(), &embedder));
  return embedder->embed_text(lines, Pooling::kMean, false, out);
}

// A decoder LM's log-prob of each token of each line (after its start token), the end token's
// last: teacher forcing, one line at a time.
Status score_lines(const Model& model, const std::vector<std::string>& lines, std::vector<float>* out) {
  std::unique_ptr<Generator> generator;
  GeneratorOptions options;
  options.positions_needed = kCalibrationContext;  // or the model's own limit, when smaller
  HEED_RETURN_IF_ERROR(Generator::create(model, options, &generator));
  const size_t context = std::min(kCalibrationContext, generator->max_context());
  out->clear();
  for (const std::string& line : lines) {
    std::vector<int32_t> ids;
    HEED_RETURN_IF_ERROR(generator->encode(line, &ids));
    if (generator->bos_id() >= 0) ids.insert(ids.begin(), generator->bos_id());
    if (ids.size() + 1 > context) ids.resize(context - 1);
    if (ids.empty()) continue;
    const size_t offsets[2] = {0, ids.size()};
    ScoreOutput scored;
    HEED_RETURN_IF_ERROR(generator->score(TokenBatch{ids.data(), offsets, 1}, &scored));
    out->insert(out->end(), scored.sentence(0), scored.sentence(0) + scored.length(0));
  }
  return Status::success();
}

}  // namespace

bool calibrates_as_encoder(const NeutralModel& model) { return model.config.AsTransformerEncoderOnly() != nullptr; }

bool can_calibrate(const NeutralModel& model) {
  return calibrates_as_encoder(model) || model.config.AsTransformerDecoderOnly() != nullptr;
}

Status run_calibration(const NeutralModel& model, const std::vector<std::string>& lines, layers::InputRecorder* recorder,
                       CalibrationOutput* out) {
  std::vector<uint8_t> bytes;
  std::unique_ptr<Model> loaded;
  HEED_RETURN_IF_ERROR(load_model(model, &bytes, &loaded));
  const bool encoder = calibrates_as_encoder(model);
  layers::InputRecorder* previous = layers::set_input_recorder(recorder);
  const Status status = encoder ? embed_lines(*loaded, lines, &out->values) : score_lines(*loaded, lines, &out->values);
  layers::set_input_recorder(previous);  // the continuations' activations are not calibration's
  HEED_RETURN_IF_ERROR(status);
  out->continuations.clear();
  return encoder ? Status::success() : greedy_continuations(*loaded, lines, kSelfCheckTokens, &out->continuations);
}

namespace {

bool is_embedding_table(const std::string& name) {
  const std::string suffix = ".embeddings";
  return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The `count` channels of largest range, increasing.
std::vector<uint32_t> widest_channels(const std::vector<float>& range, uint32_t count) {
  std::vector<uint32_t> order(range.size());
  for (uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return range[a] > range[b]; });
  order.resize(count);
  std::sort(order.begin(), order.end());
  return order;
}

}  // namespace

Status split_channels(NeutralModel* model, const std::string& weight, std::vector<uint32_t> channels) {
  NeutralTensor* t = model->find(weight);
  if (t == nullptr || t->dtype != fb::DType::F32 || t->shape.size() != 2) {
    return invalid_argument("outlier channels: '" + weight + "' is not a float32 matrix");
  }
  const size_t n = t->shape[0], k = t->shape[1], count = channels.size();
  for (size_t j = 0; j < count; ++j) {
    if (channels[j] >= k || (j > 0 && channels[j] <= channels[j - 1])) {
      return invalid_argument("outlier channels of '" + weight + "' are not increasing indices below " + std::to_string(k));
    }
  }
  auto* w = reinterpret_cast<float*>(t->bytes.data());
  std::vector<float> columns(count * n);
  for (size_t j = 0; j < count; ++j)
    for (size_t r = 0; r < n; ++r) {
      columns[j * n + r] = w[r * k + channels[j]];
      w[r * k + channels[j]] = 0.0f;
    }
  t->outliers = weight + ".outliers";
  t->outlier_channels = std::move(channels);
  const std::string name = t->outliers;
  model->add_f32(name, {static_cast<uint32_t>(count), static_cast<uint32_t>(n)}, columns.data());  // t is invalid now
  return Status::success();
}

Status split_outlier_channels(NeutralModel* model, uint32_t count, const std::vector<std::string>& lines,
                              size_t* split, CalibrationOutput* reference) {
  if (split != nullptr) *split = 0;
  if (count == 0) return Status::success();
  ChannelRanges ranges;
  CalibrationOutput out;
  const Status calibrated = run_calibration(*model, lines, &ranges, &out);
  if (!calibrated) return invalid_argument("calibrating outlier channels: " + calibrated.message());
  if (reference != nullptr) *reference = std::move(out);
  for (const auto& [name, range] : ranges.ranges()) {
    NeutralTensor* t = model->find(name);
    // A tied output projection is the embedding table, whose rows are also looked up as they
    // are: its channels stay where they are.
    if (is_embedding_table(name) || t == nullptr || !t->quantizable || t->dtype != fb::DType::F32 || t->shape.size() != 2 ||
        t->shape[1] != range.size() || range.size() <= count || range.size() > format::kMaxOutlierInputs) {
      continue;
    }
    HEED_RETURN_IF_ERROR(split_channels(model, name, widest_channels(range, count)));
    if (split != nullptr) ++*split;
  }
  return Status::success();
}

Status self_check(const NeutralModel& model, const std::vector<std::string>& lines, const CalibrationOutput& reference,
                  SelfCheck* check) {
  CalibrationOutput out;
  const Status run = run_calibration(model, lines, nullptr, &out);
  if (!run) return invalid_argument("self-check of the converted model: " + run.message());
  return compare_calibration(out, reference, calibrates_as_encoder(model), lines.size(), check);
}

}  // namespace heed::convert
