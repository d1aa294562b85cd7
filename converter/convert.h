// The one conversion pipeline: read a source through its format's reader, quantize the weights,
// pack the int8 matrices for the kernels, write the .heed file atomically. `heed convert` and the
// fuzzers run this same code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "formats.h"
#include "heed/status.h"
#include "neutral_model.h"
#include "pack.h"
#include "quantize.h"
#include "vocab_map.h"

namespace heed::convert {

// The slow stages of a conversion, which report their progress to the caller (the converter
// draws nothing itself: `heed convert` renders it on the terminal, other callers ignore it).
enum class ConvertStage { kQuantizing, kPacking };
// Called as a stage advances: `done` of `total` steps (tensors) finished.
using ConvertProgress = std::function<void(ConvertStage stage, size_t done, size_t total)>;

struct ConvertOptions {
  QuantizeOptions quantize;
  WeightLayout layout = WeightLayout::kAuto;
  // Activation blocks of the packed int8 linear layers (Tensor.activation_block): 0 per row, else a
  // multiple of 16; unset: the model's default (kEncoderActivationBlock for encoder-only models,
  // kDecoderActivationBlock for decoder-only LMs with float weights, per row for the others;
  // docs/quantization.md has the measurements).
  std::optional<uint32_t> activation_block;
  // Input channels of each packed int8 linear layer kept in float32 (outliers.h), found by running
  // the float model on calibration text: 0 none; unset: the model's default
  // (kEncoderOutlierChannels / kDecoderOutlierChannels for encoder-only models / decoder-only LMs
  // with activation blocks, else none).
  std::optional<uint32_t> outlier_channels;
  std::string calibration;  // calibration text file, one sentence per line; empty: the built-in lines
  // SentencePiece models to embed in a translation model read with whitespace vocabularies (a
  // CTranslate2 folder): both or neither; they replace source.spm / target.spm found in the folder.
  std::string source_spm, target_spm;
  // CTranslate2 vocabulary mapping file (vocab_map.h) stored in the file as its vocabulary
  // shortlist; empty: none. Translation (Transformer encoder-decoder) models only.
  std::string vmap;
  std::vector<TensorReport>* report = nullptr;  // each tensor's quantization error, when set
  ConvertProgress progress;  // empty: nobody is told
};

// The combinations of options the pipeline refuses (one line each): check_quantize_options, and
// the packed layout with weights it cannot pack.
Status check_convert_options(const ConvertOptions& options);

constexpr uint32_t kEncoderActivationBlock = 32;
constexpr uint32_t kEncoderOutlierChannels = 8;
// Decoder-only LMs with float source weights (SmolLM2-135M on 40 chats: the float model's 48-token
// greedy answer on 27/40 against 3/40 per row; docs/quantization.md).
constexpr uint32_t kDecoderActivationBlock = 16;
constexpr uint32_t kDecoderOutlierChannels = 8;

struct ConvertSummary {
  size_t tensors = 0;
  uint32_t activation_block = 0;  // the block written to the packed linear weights (0: per row)
  size_t parameters = 0;  // values of every tensor but the quantization scales
  size_t packed = 0;      // matrices stored packed 16x4
  uint32_t outlier_channels = 0;  // input channels per linear layer kept in float32
  size_t outlier_layers = 0;      // linear layers that got them
  // Models calibrated for outlier channels: the converted model against the float one on the
  // calibration lines (check_lines 0 when not run). Encoders (check_encoder): the mean-pooled
  // embeddings' cosine similarity; decoder LMs: the lines' mean negative log-likelihood per token
  // and their greedy continuations (self_check.h: kSelfCheckTokens tokens, the end token included).
  size_t check_lines = 0;
  bool check_encoder = true;
  double check_lowest_cosine = 0, check_mean_cosine = 0;
  double check_nll_float = 0, check_nll_converted = 0;
  size_t check_continuation_tokens = 0;  // tokens of each greedy continuation compared
  size_t check_same_continuations = 0;   // lines continued exactly as the float32 model does
  double check_matched_prefix = 0;      // mean share of the float32 continuation's leading tokens kept
  VocabMapSummary vmap;  // the shortlist written (all zero without --vmap)
};

// Quantizes and packs a model a reader produced, after adding the options' vocabulary shortlist
// (first: a bad --vmap fails before the slow steps).
Status quantize_and_pack(NeutralModel* model, const ConvertOptions& options, ConvertSummary* summary);

// A CTranslate2 folder keeps its vocabulary map as vmap.txt beside model.bin (its converters'
// --vocab_mapping put it there, its use_vmap reads it): options->vmap becomes that file when it is
// empty and `source` is such a folder. convert_file() calls it; so does every caller that runs
// format.read() and quantize_and_pack() itself.
void take_vmap_beside(const SourceFormat& format, const std::string& source, ConvertOptions* options);

// The whole pipeline from `source` (in `format`) to the .heed file `output`.
Status convert_file(const SourceFormat& format, const std::string& source, const std::string& output,
                    const ConvertOptions& options, ConvertSummary* summary);

}  // namespace heed::convert
