// `heed embed`: one sentence embedding per input line, from an encoder-only (BERT-family) model.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "encoder_command.h"
#include "heed/embedder.h"
#include "json_output.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads sentences from stdin, one per line, and writes one embedding per line to stdout as\n"
    "JSON lines: {\"embedding\":[x0,x1,...]} with d_model numbers each (the shortest decimals\n"
    "that read back as the same float32). Line i of the output belongs to\n"
    "line i of the input; an empty line is embedded too ([CLS] [SEP] alone).\n"
    "\n"
    "The model is an encoder-only Transformer converted with `heed convert --from hf-bert` (BERT,\n"
    "MiniLM, sentence-transformers models), `--from hf-xlm-roberta` (XLM-R, multilingual e5) or\n"
    "`--from hf-mpnet` (all-mpnet-base-v2).\n"
    "Each line is tokenized like Hugging Face's BertTokenizer (the model's vocab.txt and casing)\n"
    "or, for XLM-RoBERTa, as the tokenizers library runs its tokenizer.json's Unigram, wrapped in\n"
    "[CLS] ... [SEP] (<s> ... </s>) and cut to\n"
    "--max-source-len tokens (default: the length a sentence-transformers model was trained to\n"
    "read, its max_seq_length, else the model's position table).\n"
    "\n"
    "Pooling: mean (the average of the last hidden states over the sentence's tokens, [CLS] and\n"
    "[SEP] included, as sentence-transformers computes it) or cls (the [CLS] token's state). The\n"
    "default is the pooling recorded by the converter (sentence-transformers folders name it),\n"
    "else mean. --normalize divides each vector by its L2 norm (cosine similarity is then a dot\n"
    "product); a sentence-transformers model whose pipeline ends with Normalize does so by default\n"
    "(--no-normalize turns it off).\n"
    "\n"
    "A line that cannot be answered (invalid UTF-8, ...) is written as {} and reported on stderr with\n"
    "its line number; the other lines are answered.\n"
    "Exit status: 0 done, 1 error (a line on stderr per error), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> own = {
      model_option(),
      {"pooling", 0, true, "MODE", "mean or cls (default: the model's, else mean)"},
      {"normalize", 0, false, "", "L2-normalize each embedding (default: the model's pipeline)"},
      {"no-normalize", 0, false, "", "do not normalize, even when the model's pipeline does"},
  };
  for (auto& spec : encoder_session_specs()) own.push_back(std::move(spec));
  return own;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed embed: %s\n", message.c_str());
  return kExitError;
}

// The batch's records, written once every line has one; an error for a value that is not a number.
Status print_embeddings(const std::vector<float>& vectors, size_t lines, size_t dim) {
  std::string out, text;
  for (size_t i = 0; i < lines; ++i) {
    FloatJson values = FloatJson::array();
    for (size_t k = 0; k < dim; ++k) values.push_back(json_number(vectors[i * dim + k]));
    HEED_RETURN_IF_ERROR(json_text(FloatJson{{"embedding", std::move(values)}}, &text));
    out += text + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return Status::success();
}

int run_embed(const std::vector<std::string>& argv) {
  Args args("embed", "-m MODEL.heed [--pooling mean|cls] [--normalize] < sentences.txt", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  EmbedderOptions options;
  if (const auto exit_code = read_encoder_session(args, &options)) return *exit_code;
  Pooling pooling = Pooling::kMean;
  if (args.has("pooling") && !parse_pooling(args.get("pooling"), &pooling)) {
    return args.usage_error("--pooling must be mean or cls, not '" + args.get("pooling") + "'");
  }

  if (args.has("normalize") && args.has("no-normalize")) return args.usage_error("give --normalize or --no-normalize, not both");
  std::unique_ptr<Embedder> embedder;
  Status st = Embedder::open(args.get("model"), options, &embedder);
  if (!st) return fail(st.message());
  if (!args.has("pooling")) pooling = embedder->default_pooling();
  const bool normalize = args.has("normalize") || (embedder->default_normalize() && !args.has("no-normalize"));

  std::vector<float> vectors;
  const size_t dim = embedder->dimension();
  const AnswerLines answer = [&](const std::vector<std::string>& lines, size_t) {
    HEED_RETURN_IF_ERROR(embedder->embed_text(lines, pooling, normalize, &vectors));
    return print_embeddings(vectors, lines.size(), dim);
  };
  return answer_stdin_lines("embed", embedder->max_batch(), !args.has("no-progress"), answer);
}

}  // namespace

HEED_REGISTER_COMMAND(embed, "embed", "sentence embeddings (stdin lines -> JSON lines) with a BERT-style encoder", 55,
                      run_embed);

}  // namespace heed::cli
