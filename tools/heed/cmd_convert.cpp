// `heed convert`: a trained model (a CTranslate2 folder, an Argos package, ...) -> one .heed file, quantized.
#include <cmath>
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "args.h"
#include "argos/reader.h"
#include "command.h"
#include "ct2/reader.h"
#include "heed_writer.h"
#include "hf_causal_lm/reader.h"
#include "marian/reader.h"
#include "hf_bert/reader.h"
#include "llama2c/reader.h"
#include "pack.h"
#include "progress.h"
#include "quantize.h"
#include "torch_seq2seq/reader.h"

namespace heed::cli {
namespace {

// Source formats `--from` accepts: a name, a detector for when --from is omitted, a reader.
struct SourceFormat {
  const char* name;
  const char* description;
  bool (*detect)(const std::string& path);
  Status (*read)(const std::string& path, convert::NeutralModel* out);
};

const std::vector<SourceFormat>& source_formats() {
  static const std::vector<SourceFormat> formats = {
      {"ct2", "CTranslate2 model folder (model.bin + vocabularies [+ config.json])", &convert::ct2::looks_like_model,
       &convert::ct2::read_model},
      {"llama2c", "llama2.c checkpoint (legacy or version 1 float32) with tok<VOCAB>.bin or tokenizer.bin beside it", &convert::llama2c::looks_like_model, &convert::llama2c::read_model},
      {"hf-marian", "Hugging Face Marian (OPUS-MT) folder: config.json, model.safetensors, source/target.spm, vocab.json", &convert::marian::looks_like_model, &convert::marian::read_model},
      {"hf-bert", "Hugging Face BERT-family folder (BERT, MiniLM): config.json, model.safetensors, vocab.txt", &convert::hf_bert::looks_like_model, &convert::hf_bert::read_model},
      {"torch-seq2seq", "PyTorch RNN seq2seq with attention: model.safetensors (state_dict) + config.json (docs/torch-seq2seq.md)", &convert::torch_seq2seq::looks_like_model, &convert::torch_seq2seq::read_model},
      {"argos", "Argos Translate package (.argosmodel zip: CTranslate2 model + sentencepiece.model + metadata.json)", &convert::argos::looks_like_package, &convert::argos::read_model},
      {"hf-gpt2", "Hugging Face GPT-2 folder: config.json (model_type gpt2), model.safetensors, vocab.json, merges.txt", &convert::hf_causal_lm::looks_like_gpt2, &convert::hf_causal_lm::read_gpt2},
      {"hf-llama", "Hugging Face Llama folder: config.json (model_type llama), model.safetensors, tokenizer.model", &convert::hf_causal_lm::looks_like_llama, &convert::hf_causal_lm::read_llama},
  };
  return formats;
}

std::string format_names() {
  std::string names;
  for (const auto& f : source_formats()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
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

int run_convert(const std::vector<std::string>& argv) {
  Args args("convert", "[--from FORMAT] SOURCE -o OUTPUT.heed [options]",
            "Converts a trained model into one .heed file: weights (quantized), hyperparameters and\n"
            "tokenizer. The output is written atomically: on any error no file is left behind and an\n"
            "existing OUTPUT is replaced only when the conversion succeeded.\n\n"
            "SOURCE formats (--from):\n"
            "  ct2      CTranslate2 model folder: model.bin (binary versions 1-6; specs TransformerBase,\n"
            "           TransformerBig, TransformerSpec, TransformerDecoderSpec), the vocabularies\n"
            "           (shared_/source_/target_vocabulary or vocabulary, .json or .txt) and config.json.\n"
            "           Detected automatically when SOURCE holds a model.bin.\n"
            "  hf-marian  Hugging Face Marian (OPUS-MT) folder: config.json, model.safetensors,\n"
            "           source.spm, target.spm, vocab.json. The SentencePiece models go into the file,\n"
            "           so `heed translate` reads and writes plain text.\n"
            "  hf-bert  Hugging Face BERT-family folder (BERT, MiniLM; model_type bert): config.json,\n"
            "           model.safetensors, vocab.txt [, tokenizer_config.json, 1_Pooling/config.json].\n"
            "           An encoder for sentence embeddings: run with `heed embed`.\n"
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
            "           model.safetensors, vocab.json + merges.txt (the byte-level BPE goes into the\n"
            "           file: `heed generate --prompt` reads text).\n"
            "  hf-llama Hugging Face Llama (LlamaForCausalLM) folder: config.json (model_type llama),\n"
            "           model.safetensors, tokenizer.model (embedded: `heed generate --prompt` reads text).\n"
            "           Not supported: rope_scaling, sharded weights, tokenizer.json-only tokenizers.\n"
            "The format is detected from SOURCE's files when --from is not given.\n\n"
            "Weights (--quantize):\n"
            "  int8     (default) symmetric int8, one scale per output row (or per group of N values with\n"
            "           --group-size N): scale = max|x| / 127, real = q * scale. Weights that are already\n"
            "           int8 in the source are kept bit-exactly, never quantized twice.\n"
            "  float16  weight matrices as IEEE half precision.\n"
            "  float32  weight matrices as stored floats (int8 sources are dequantized).\n"
            "Biases, norms and position tables are always float32.\n\n"
            "Weight layout (--layout):\n"
            "  auto        (default) int8 matrices with one scale per row that only a linear layer\n"
            "              reads (every NAME.weight) are stored in the 16x4 packed layout the int8 GEMM\n"
            "              kernels read directly, with their int32 row sums; the runtime uses them in\n"
            "              place. Embeddings (also when tied to the output projection), float weights\n"
            "              and --group-size weights stay row-major.\n"
            "  row-major   every tensor in plain C order (the layout of files before packing existed).\n"
            "  packed16x4  as auto, but refused unless the weights are int8 without --group-size.\n"
            "Both layouts give the same results; `heed inspect` shows each tensor's layout.\n\n"
            "Prints a summary line (tensors, parameters, file size) when done; a progress bar on a\n"
            "terminal. Exit status: 0 done, 1 conversion error, 2 wrong usage.",
            {
                {"from", 'f', true, "FORMAT", "source format: " + format_names() + " (default: detected)"},
                {"output", 'o', true, "FILE", "the .heed file to write (required)"},
                {"quantize", 'q', true, "TYPE", "weight type: int8 (default), float16, float32"},
                {"group-size", 0, true, "N", "int8 scale per group of N values of a row (N multiple of 4)"},
                {"layout", 0, true, "LAYOUT", "weight layout: auto (default), row-major, packed16x4"},
                {"report", 0, false, "", "print each weight's quantization error (max |error|, SNR) to stderr"},
                {"quiet", 0, false, "", "no progress bar and no summary line"},
            });
  if (!args.parse(argv)) return kExitUsage;
  if (args.help_requested()) return kExitOk;

  if (args.positionals().size() != 1) {
    return args.usage_error(args.positionals().empty() ? "missing the SOURCE model"
                                                       : "expected one SOURCE, got " + std::to_string(args.positionals().size()));
  }
  const std::string source = args.positionals()[0];
  const std::string output = args.get("output");
  if (output.empty()) return args.usage_error("missing the output file (-o OUTPUT.heed)");

  convert::QuantizeOptions options;
  Status status = convert::parse_weight_type(args.get("quantize", "int8"), &options.type);
  if (!status) return args.usage_error(status.message());
  const std::optional<int64_t> group = args.get_int("group-size", 0, 0, 1 << 20);
  if (!group) return kExitUsage;
  options.group_size = static_cast<uint32_t>(*group);
  if (options.group_size != 0 && options.group_size % 4 != 0) {
    return args.usage_error("--group-size must be a multiple of 4, got " + std::to_string(options.group_size));
  }
  if (options.group_size != 0 && options.type != convert::WeightType::kInt8) {
    return args.usage_error("--group-size only applies to --quantize int8");
  }

  convert::WeightLayout layout = convert::WeightLayout::kAuto;
  status = convert::parse_weight_layout(args.get("layout", "auto"), &layout);
  if (!status) return args.usage_error(status.message());
  if (layout == convert::WeightLayout::kPacked16x4 &&
      (options.type != convert::WeightType::kInt8 || options.group_size != 0)) {
    return args.usage_error("--layout packed16x4 needs int8 weights with one scale per row (--quantize int8, no --group-size)");
  }

  const SourceFormat* format = nullptr;
  if (args.has("from")) {
    for (const auto& f : source_formats()) {
      if (args.get("from") == f.name) format = &f;
    }
    if (!format) return args.usage_error("unknown source format '" + args.get("from") + "' (supported: " + format_names() + ")");
  } else {
    for (const auto& f : source_formats()) {
      if (f.detect(source)) format = &f;
    }
    if (!format) {
      return fail(invalid_argument("cannot tell the format of '" + source + "' (no model.bin, not a zip file); pass --from (" +
                                   format_names() + ")"));
    }
  }
  const bool quiet = args.has("quiet");

  convert::NeutralModel model;
  status = format->read(source, &model);
  if (!status) return fail(status);

  size_t parameters = 0;
  for (const auto& t : model.tensors) {
    if (t.name.size() < 7 || t.name.compare(t.name.size() - 7, 7, ".scales") != 0) parameters += t.num_elements();
  }

  std::vector<convert::TensorReport> report;
  {
    convert::ProgressBar bar("heed convert: quantizing", !quiet);
    status = convert::quantize_model(&model, options, args.has("report") ? &report : nullptr,
                                     [&](size_t done, size_t total) { bar.update(done, total); });
  }
  if (!status) return fail(status);
  size_t packed = 0;
  {
    convert::ProgressBar bar("heed convert: packing", !quiet && layout != convert::WeightLayout::kRowMajor);
    status = convert::pack_model(&model, layout, &packed, args.has("report") ? &report : nullptr,
                                 [&](size_t done, size_t total) { bar.update(done, total); });
  }
  if (!status) return fail(status);
  if (args.has("report")) print_report(report);

  status = convert::write_heed(model, output);
  if (!status) return fail(status);

  if (!quiet) {
    struct stat st {};
    const uint64_t size = ::stat(output.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
    std::string weights = convert::weight_type_name(options.type);
    if (options.type == convert::WeightType::kInt8) {
      weights += options.group_size ? " per group of " + std::to_string(options.group_size) : " per row";
    }
    weights += packed ? " (" + std::to_string(packed) + " matrices packed 16x4)" : " (row-major)";
    std::printf("heed convert: wrote %s: %zu tensors, %zu parameters, %s, %s weights (from %s %s)\n", output.c_str(),
                model.tensors.size(), parameters, human_bytes(size).c_str(), weights.c_str(), format->name,
                source.c_str());
  }
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(convert, "convert", "convert a trained model (CTranslate2, Marian, Argos, BERT, GPT-2, Llama, llama2.c, PyTorch seq2seq) into a .heed file", 10,
                      &run_convert);

}  // namespace heed::cli
