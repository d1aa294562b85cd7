// `heed convert`: a trained model (a CTranslate2 folder, an Argos package, ...) -> one .heed file, quantized.
#include <cmath>
#include <optional>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "args.h"
#include "command.h"
#include "convert.h"
#include "progress_bar.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
            "Converts a trained model into one .heed file: weights (quantized), hyperparameters and\n"
    "tokenizer. The output is written atomically: on any error no file is left behind and an\n"
    "existing OUTPUT is replaced only when the conversion succeeded. A symlink OUTPUT is followed\n"
    "(the file it leads to is replaced, the link stays), a character device (/dev/null) is written\n"
    "through, any other OUTPUT that is not a regular file (folder, FIFO, socket) is refused.\n\n"
    "SOURCE formats (--from):\n"
    "  ct2      CTranslate2 model folder: model.bin (binary versions 1-6; specs TransformerBase,\n"
    "           TransformerBig, TransformerSpec, TransformerDecoderSpec), the vocabularies\n"
    "           (shared_/source_/target_vocabulary or vocabulary, .json or .txt) and config.json.\n"
    "           Detected automatically when SOURCE holds a model.bin. A translation model's\n"
    "           source.spm and target.spm beside them (as CTranslate2's OPUS-MT guide keeps\n"
    "           them), or --source-spm/--target-spm, go into the file: plain text in and out.\n"
    "  hf-marian  Hugging Face Marian (OPUS-MT) folder: config.json, model.safetensors,\n"
    "           source.spm, target.spm, vocab.json. The SentencePiece models go into the file,\n"
    "           so `heed translate` reads and writes plain text.\n"
    "  hf-bert  Hugging Face BERT-family folder (BERT, MiniLM; model_type bert): config.json,\n"
    "           model.safetensors, vocab.txt [, tokenizer_config.json, 1_Pooling/config.json].\n"
    "           An encoder for sentence embeddings: run with `heed embed`.\n"
    "  hf-xlm-roberta  Hugging Face XLM-RoBERTa folder (XLM-R, multilingual e5; model_type\n"
    "           xlm-roberta): config.json, model.safetensors, tokenizer.json (Unigram) [, the\n"
    "           sentence-transformers files as for hf-bert]. Run with `heed embed`.\n"
    "  hf-mpnet  Hugging Face MPNet folder (all-mpnet-base-v2; model_type mpnet): config.json,\n"
    "           model.safetensors, vocab.txt or tokenizer.json (WordPiece) [, the\n"
    "           sentence-transformers files as for hf-bert]. Run with `heed embed`.\n"
    "  llama2c  llama2.c checkpoint (legacy or version 1 .bin, or a folder holding one) with its\n"
    "           tokenizer beside it (tok<VOCAB>.bin, else tokenizer.bin); run with `heed generate`.\n"
    "  torch-seq2seq  RNN encoder-decoder with attention: model.safetensors + config.json\n"
    "           (docs/torch-seq2seq.md lists the expected names and keys).\n"
    "  argos    Argos Translate package: the .argosmodel zip file (a CTranslate2 model in model/,\n"
    "           sentencepiece.model, metadata.json). Unpacked with size and path checks into a\n"
    "           temporary folder that is always removed; the SentencePiece model goes into the\n"
    "           file (plain text in and out) and the languages into its metadata. Detected for\n"
    "           files named *.argosmodel or starting like a zip file.\n"
    "  hf-gpt2  Hugging Face GPT-2 (GPT2LMHeadModel) folder: config.json (model_type gpt2),\n"
    "           model.safetensors, vocab.json + merges.txt or tokenizer.json (the byte-level BPE\n"
    "           goes into the file: `heed generate --prompt` reads text).\n"
    "  hf-llama Hugging Face Llama (LlamaForCausalLM) folder: config.json (model_type llama),\n"
    "           model.safetensors, tokenizer.model or a byte-level BPE tokenizer.json (GPT-2's,\n"
    "           SmolLM's, Llama 3's or Qwen2's split), embedded: `heed generate --prompt` reads\n"
    "           text. Not supported: rope_scaling, sharded weights.\n"
    "The format is detected from SOURCE's files when --from is not given.\n\n"
    "Weights (--quantize):\n"
    "  int8     (default) symmetric int8, one scale per output row (or per group of N values with\n"
    "           --group-size N): scale = max|x| / 127, real = q * scale. Weights that are already\n"
    "           int8 in the source are kept bit-exactly, never quantized twice.\n"
    "  float16  weight matrices as IEEE half precision.\n"
    "  float32  weight matrices as stored floats (int8 sources are dequantized).\n"
    "Biases, norms and position tables are always float32.\n\n"
    "Blocks (--activation-block N): the packed int8 linear layers are quantized in blocks of N\n"
    "values along K (a multiple of 16), each with its own scale, for the weights (written so) and\n"
    "for the activations (quantized so at run time), as ggml's q8_0 x q8_0; an outlier channel then\n"
    "coarsens its own block, not the whole row. The default is 32 for encoders (hf-bert: real\n"
    "sentence encoders lose most to per-row activations), 16 for decoder-only language models with\n"
    "float weights (the vocabulary projection included), 0 (per row) for translation models;\n"
    "docs/quantization.md has the measurements.\n\n"
    "Outlier channels (--outlier-channels N): a few input channels of a real encoder's or language\n"
    "model's layers carry activations 10-30x wider than the rest. The converter runs the float32\n"
    "model on calibration text (--calibration FILE, one sentence per line; default: 32 built-in\n"
    "English sentences), embedding it (encoders) or scoring it (decoder-only LMs), finds each packed\n"
    "int8 linear layer's N widest input channels and keeps them in float32: their weights are stored\n"
    "apart, their activations are multiplied in float32 and left out of the int8 scales. The default\n"
    "is 8 for encoders and decoder-only LMs in activation blocks, 0 otherwise. The converted model\n"
    "then runs the calibration lines again and the summary prints the self-check: its cosine\n"
    "similarity to the float32 model (encoders), or both models' NLL per token and on how many\n"
    "lines it continues the text greedily (16 tokens) exactly as the float32 model does (LMs).\n\n"
    "Weight layout (--layout):\n"
    "  auto        (default) int8 matrices with one scale per row (or per activation block)\n"
    "              that a linear layer reads (every NAME.weight, and the embedding table a tied\n"
    "              output projection reuses) are stored in the 16x4 packed layout the int8 GEMM\n"
    "              kernels read directly, with their int32 row sums; the runtime uses them in\n"
    "              place. Other embeddings, float weights and --group-size weights stay row-major.\n"
    "  row-major   every tensor in plain C order (the layout of files before packing existed).\n"
    "  packed16x4  as auto, but refused unless the weights are int8 without --group-size.\n"
    "Both layouts give the same results; `heed inspect` shows each tensor's layout.\n\n"
    "Vocabulary shortlist (--vmap FILE): CTranslate2's vocabulary mapping, stored in the file for\n"
    "translation (Transformer encoder-decoder) models. Each line is a source n-gram, a tab and the\n"
    "target tokens it makes candidates, tokens separated by single spaces (`src_1 ... src_N<TAB>tgt_1\n"
    "... tgt_K`); a line with an empty n-gram lists the tokens that are always candidates. Empty\n"
    "lines are skipped, CRLF line ends are read as LF, a line without a tab is an error. Tokens are\n"
    "mapped to the model's vocabularies: an n-gram holding a token not in the source vocabulary is\n"
    "dropped, a target token not in the target vocabulary too, and the summary counts both.\n"
    "Repeated n-grams merge their candidates. A CTranslate2 folder's own vmap.txt (beside\n"
    "model.bin) is taken when --vmap is not given. `heed translate --use-vmap` then scores only the\n"
    "candidates of each batch's source n-grams (with the always-candidates and special tokens;\n"
    "docs/decoding.md).\n\n"
    "Prints a summary line (tensors, parameters, file size) when done; a progress bar on a\n"
    "terminal. Exit status: 0 done, 1 conversion error, 2 wrong usage.";

std::vector<OptionSpec> specs() {
  return {
      {"from", 'f', true, "FORMAT", "source format: " + convert::format_names() + " (default: detected)"},
      {"output", 'o', true, "FILE", "the .heed file to write (required)"},
      {"quantize", 'q', true, "TYPE", "weight type: int8 (default), float16, float32"},
      {"group-size", 0, true, "N", "int8 scale per group of N values of a row (N multiple of 4)"},
      {"layout", 0, true, "LAYOUT", "weight layout: auto (default), row-major, packed16x4"},
      {"activation-block", 0, true, "N", "int8 linear layers in blocks of N values of K (multiple of 16), each with its "
                                         "own scale for the weights and for the activations; 0: per row; default: 32 "
                                         "for encoders (hf-bert), 0 otherwise"},
      {"outlier-channels", 0, true, "N", "input channels per int8 linear layer kept in float32, chosen on calibration "
                                         "text (0-64; default: 8 for encoders (hf-bert), 0 otherwise)"},
      {"calibration", 0, true, "FILE", "text to find the outlier channels on, one sentence per line (default: "
                                       "built-in English sentences)"},
      {"source-spm", 0, true, "FILE", "SentencePiece model that splits the source text, embedded (with --target-spm; "
                                      "for CTranslate2 folders, whose source.spm/target.spm are taken by default)"},
      {"target-spm", 0, true, "FILE", "SentencePiece model that joins the target pieces, embedded (with --source-spm)"},
      {"vmap", 0, true, "FILE", "vocabulary shortlist (CTranslate2's vocabulary mapping: source n-gram TAB target "
                                "tokens, one per line) stored in the file; translation models only"},
      {"report", 0, false, "", "print each weight's quantization error (max |error|, SNR) to stderr"},
      {"quiet", 0, false, "", "no progress bar and no summary line"},
  };
}

int fail(const Status& status) {
  std::fprintf(stderr, "heed convert: %s\n", status.message().c_str());
  return kExitError;
}

std::string human_bytes(uint64_t bytes) {
  char text[32];
  if (bytes < 1024 * 1024) {
    std::snprintf(text, sizeof(text), "%.1f KiB", bytes / 1024.0);
  } else {
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / (1024.0 * 1024.0));
  }
  return text;
}

void print_report(const std::vector<convert::TensorReport>& report) {
  std::fprintf(stderr, "%-56s %-40s %12s %10s\n", "tensor", "stored as", "max |error|", "SNR dB");
  for (const auto& r : report) {
    char snr[32];
    if (std::isinf(r.snr_db)) {
      std::snprintf(snr, sizeof(snr), "exact");
    } else {
      std::snprintf(snr, sizeof(snr), "%.2f", r.snr_db);
    }
    std::fprintf(stderr, "%-56s %-40s %12.6g %10s\n", r.name.c_str(), r.stored.c_str(), r.max_abs_error, snr);
  }
}

// The weight options; returns the exit code to leave with, or nullopt to go on.
std::optional<int> parse_options(const Args& args, convert::ConvertOptions* options) {
  Status status = convert::parse_weight_type(args.get("quantize", "int8"), &options->quantize.type);
  if (!status) return args.usage_error(status.message());
  const std::optional<int64_t> group = args.get_int("group-size", 0, 0, 1 << 20);
  if (!group) return kExitUsage;
  options->quantize.group_size = static_cast<uint32_t>(*group);
  status = convert::parse_weight_layout(args.get("layout", "auto"), &options->layout);
  if (!status) return args.usage_error(status.message());
  if (args.has("activation-block")) {
    const std::optional<int64_t> block = args.get_int("activation-block", 0, 0, 65536);
    if (!block) return kExitUsage;
    options->activation_block = static_cast<uint32_t>(*block);
  }
  if (args.has("outlier-channels")) {
    const std::optional<int64_t> count = args.get_int("outlier-channels", 0, 0, 64);
    if (!count) return kExitUsage;
    options->outlier_channels = static_cast<uint32_t>(*count);
  }
  options->calibration = args.get("calibration", "");
  options->source_spm = args.get("source-spm", "");
  options->target_spm = args.get("target-spm", "");
  options->vmap = args.get("vmap", "");
  status = convert::check_convert_options(*options);
  if (!status) return args.usage_error(status.message());
  return std::nullopt;
}

// 12345 -> "12,345": the shortlist's counts run to millions.
std::string grouped(uint64_t n) {
  std::string digits = std::to_string(n);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  return digits;
}

void print_vmap_summary(const convert::VocabMapSummary& v) {
  std::printf(
      "heed convert: vmap: %s keys (n-grams of 1-%u tokens), %s candidates, %s always; %s source n-grams "
      "dropped (token not in the source vocabulary), %s target tokens dropped (not in the target "
      "vocabulary)\n",
      grouped(v.keys).c_str(), v.max_ngram, grouped(v.candidates).c_str(), grouped(v.always).c_str(),
      grouped(v.dropped_ngrams).c_str(), grouped(v.dropped_targets).c_str());
}

void print_summary(const std::string& output, const std::string& source, const convert::SourceFormat& format,
                   const convert::ConvertOptions& options, const convert::ConvertSummary& summary) {
  struct stat st {};
  const uint64_t size = ::stat(output.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  std::string weights = convert::weight_type_name(options.quantize.type);
  if (options.quantize.type == convert::WeightType::kInt8 && summary.activation_block) {
    weights += " in blocks of " + std::to_string(summary.activation_block);
  } else if (options.quantize.type == convert::WeightType::kInt8) {
    weights += options.quantize.group_size ? " per group of " + std::to_string(options.quantize.group_size) : " per row";
  }
  weights += " weights";
  weights += summary.packed ? " (" + std::to_string(summary.packed) + " matrices packed 16x4)" : " (row-major)";
  if (summary.activation_block) weights += ", activations quantized in the same blocks";
  if (summary.outlier_layers) {
    weights += ", " + std::to_string(summary.outlier_channels) + " outlier input channels of " +
               std::to_string(summary.outlier_layers) + " layers in float32";
  }
  std::printf("heed convert: wrote %s: %zu tensors, %zu parameters, %s, %s (from %s %s)\n", output.c_str(),
              summary.tensors, summary.parameters, human_bytes(size).c_str(), weights.c_str(), format.name,
              source.c_str());
  if (summary.check_lines > 0 && summary.check_encoder) {
    std::printf("heed convert: self-check on %zu calibration lines: cosine similarity to the float32 model %.5f "
                "lowest, %.5f mean\n",
                summary.check_lines, summary.check_lowest_cosine, summary.check_mean_cosine);
  } else if (summary.check_lines > 0) {
    std::printf("heed convert: self-check on %zu calibration lines: %.4f nats/token (float32 model: %.4f, %+.2f %%); "
                "greedy continuation of %zu tokens equal to the float32 model's on %zu/%zu lines (its first %.0f %% "
                "on average)\n",
                summary.check_lines, summary.check_nll_converted, summary.check_nll_float,
                100.0 * (summary.check_nll_converted / summary.check_nll_float - 1.0), summary.check_continuation_tokens,
                summary.check_same_continuations, summary.check_lines, 100.0 * summary.check_matched_prefix);
  }
  if (!options.vmap.empty()) print_vmap_summary(summary.vmap);
}

int run_convert(const std::vector<std::string>& argv) {
  Args args("convert", "[--from FORMAT] SOURCE -o OUTPUT.heed [options]", kDescription, specs());
  if (!args.parse(argv)) return kExitUsage;
  if (args.help_requested()) return kExitOk;
  if (args.positionals().size() != 1) {
    return args.usage_error(args.positionals().empty() ? "missing the SOURCE model"
                                                       : "expected one SOURCE, got " + std::to_string(args.positionals().size()));
  }
  const std::string source = args.positionals()[0];
  const std::string output = args.get("output");
  if (output.empty()) return args.usage_error("missing the output file (-o OUTPUT.heed)");
  convert::ConvertOptions options;
  if (const auto exit_code = parse_options(args, &options)) return *exit_code;
  const convert::SourceFormat* format = nullptr;
  if (args.has("from")) {
    const Status found = convert::find_format(args.get("from"), &format);
    if (!found) return args.usage_error(found.message());
  } else {
    const Status detected = convert::detect_format(source, &format);
    if (!detected) return fail(detected);
  }
  const bool quiet = args.has("quiet");
  std::vector<convert::TensorReport> report;
  if (args.has("report")) options.report = &report;
  convert::ConvertSummary summary;
  {
    ProgressBar quantizing("heed convert: quantizing", !quiet);
    ProgressBar packing("heed convert: packing", !quiet && options.layout != convert::WeightLayout::kRowMajor);
    options.progress = [&](convert::ConvertStage stage, size_t done, size_t total) {
      if (stage == convert::ConvertStage::kPacking) {
        quantizing.finish();
        packing.update(done, total);
      } else {
        quantizing.update(done, total);
      }
    };
    const Status status = convert::convert_file(*format, source, output, options, &summary);
    if (!status) return fail(status);
  }
  if (args.has("report")) print_report(report);
  if (!quiet) print_summary(output, source, *format, options, summary);
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(convert, "convert", "convert a trained model (CTranslate2, Marian, Argos, BERT, GPT-2, Llama, llama2.c, PyTorch seq2seq) into a .heed file", 10,
                      &run_convert);

}  // namespace heed::cli
