#include "outliers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "heed/embedder.h"
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

// `model`'s mean-pooled embeddings of `lines` (one session in memory), reporting every linear
// layer's input to `recorder` when given.
Status embed_lines(const NeutralModel& model, const std::vector<std::string>& lines, layers::InputRecorder* recorder,
                   std::vector<float>* out, size_t* dimension) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(serialize_heed(model, &bytes));
  std::unique_ptr<Model> loaded;
  HEED_RETURN_IF_ERROR(Model::from_bytes(bytes.data(), bytes.size(), &loaded));
  std::unique_ptr<Embedder> embedder;
  HEED_RETURN_IF_ERROR(Embedder::create(*loaded, EmbedderOptions(), &embedder));
  *dimension = embedder->dimension();
  layers::InputRecorder* previous = layers::set_input_recorder(recorder);
  const Status status = embedder->embed_text(lines, Pooling::kMean, false, out);
  layers::set_input_recorder(previous);
  return status;
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
                              size_t* split, std::vector<float>* embeddings) {
  if (split != nullptr) *split = 0;
  if (count == 0) return Status::success();
  ChannelRanges ranges;
  size_t dimension = 0;
  std::vector<float> out;
  const Status calibrated = embed_lines(*model, lines, &ranges, &out, &dimension);
  if (!calibrated) return invalid_argument("calibrating outlier channels: " + calibrated.message());
  if (embeddings != nullptr) *embeddings = std::move(out);
  for (const auto& [name, range] : ranges.ranges()) {
    NeutralTensor* t = model->find(name);
    if (t == nullptr || !t->quantizable || t->dtype != fb::DType::F32 || t->shape.size() != 2 ||
        t->shape[1] != range.size() || range.size() <= count || range.size() > format::kMaxOutlierInputs) {
      continue;
    }
    HEED_RETURN_IF_ERROR(split_channels(model, name, widest_channels(range, count)));
    if (split != nullptr) ++*split;
  }
  return Status::success();
}

Status self_check(const NeutralModel& model, const std::vector<std::string>& lines, const std::vector<float>& reference,
                  double* lowest, double* mean) {
  std::vector<float> out;
  size_t dimension = 0;
  const Status embedded = embed_lines(model, lines, nullptr, &out, &dimension);
  if (!embedded) return invalid_argument("self-check of the converted model: " + embedded.message());
  if (dimension == 0 || out.size() != reference.size() || out.size() != lines.size() * dimension) {
    return invalid_argument("self-check of the converted model: embeddings of different sizes");
  }
  *lowest = 1.0;
  double sum = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    double dot = 0, a2 = 0, b2 = 0;
    for (size_t d = 0; d < dimension; ++d) {
      const double a = out[i * dimension + d], b = reference[i * dimension + d];
      dot += a * b;
      a2 += a * a;
      b2 += b * b;
    }
    const double cosine = a2 > 0 && b2 > 0 ? dot / std::sqrt(a2 * b2) : (a2 == b2 ? 1.0 : 0.0);
    *lowest = std::min(*lowest, cosine);
    sum += cosine;
  }
  *mean = sum / static_cast<double>(lines.size());
  return Status::success();
}

}  // namespace heed::convert
