#include "outliers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

#include "heed/embedder.h"
#include "heed/model.h"
#include "heed_format/quantization.h"
#include "heed_writer.h"
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
  std::ifstream in(path);
  if (!in) return invalid_argument("cannot read the calibration file '" + path + "'");
  lines->clear();
  std::string line;
  while (lines->size() < 1000 && std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines->push_back(line);
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

Status calibrate(const NeutralModel& model, const std::vector<std::string>& lines, ChannelRanges* ranges) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(serialize_heed(model, &bytes));
  std::unique_ptr<Model> loaded;
  HEED_RETURN_IF_ERROR(Model::from_bytes(bytes.data(), bytes.size(), &loaded));
  std::unique_ptr<Embedder> embedder;
  EmbedderOptions options;
  HEED_RETURN_IF_ERROR(Embedder::create(*loaded, options, &embedder));
  std::vector<float> out;
  layers::InputRecorder* previous = layers::set_input_recorder(ranges);
  const Status status = embedder->embed_text(lines, Pooling::kMean, false, &out);
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
                              size_t* split) {
  if (split != nullptr) *split = 0;
  if (count == 0) return Status::success();
  ChannelRanges ranges;
  const Status calibrated = calibrate(*model, lines, &ranges);
  if (!calibrated) return invalid_argument("calibrating outlier channels: " + calibrated.message());
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

}  // namespace heed::convert
