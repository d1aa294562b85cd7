// `heed tokenize`: how a model's own tokenizer splits text into pieces and ids, and (--decode) what
// text ids stand for. For debugging tokenization: it loads the file's tokenizer section only and
// builds no session.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "command.h"
#include "line_reader.h"
#include "text_escape.h"
#include "heed/model.h"
#include "heed/tokenizer.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads text from stdin, one line at a time, and writes one line per input line: the pieces the\n"
    "model's tokenizer splits it into, separated by spaces, then a tab, then their ids, e.g.\n"
    "\n"
    "    ▁Hello ▁world<TAB>123 456\n"
    "\n"
    "(--pieces-only and --ids-only print one of the two, without the tab). No start or end token is\n"
    "added (translate, generate and embed add them as the model expects). A piece the vocabulary\n"
    "lacks is shown as the tokenizer made it, with the unknown token's id.\n"
    "\n"
    "--decode does the reverse: each line holds token ids separated by spaces or commas (the ids\n"
    "column above) and becomes one line of text. Special tokens (start, end, padding, unknown) are\n"
    "left out, as in translations. An id outside the vocabulary is an error naming the line.\n"
    "\n"
    "The tokenizer is the one in the file: SentencePiece (Marian, Argos, Llama), WordPiece (BERT),\n"
    "byte-level BPE (GPT-2), tokenizer.json's Unigram (XLM-RoBERTa), byte-fallback BPE\n"
    "(llama2.c) or whitespace-separated vocabulary\n"
    "tokens (CTranslate2, OpenNMT). Translation models have a source and a target tokenizer\n"
    "(--side); models with one vocabulary (language models, BERT) have one, which either side names.\n"
    "\n"
    "Escaping: pieces are written as `heed inspect --vocab` lists the vocabulary, so each piece\n"
    "printed is a line of that list: control bytes, bytes that are not UTF-8, the backslash and the\n"
    "space as \\xNN (llama2.c's \" the\" is \\x20the). Decoded text keeps everything but control\n"
    "bytes other than tab, which become \\xNN: one input line stays one output line.\n"
    "\n"
    "Exit status: 0 done, 1 error (one line on stderr), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  return {
      model_option(),
      side_option(),
      {"decode", 0, false, "", "read lines of token ids and write their text"},
      {"ids-only", 0, false, "", "write the ids alone"},
      {"pieces-only", 0, false, "", "write the pieces alone"},
      no_mmap_option(),
  };
}

enum class Columns { kBoth, kPieces, kIds };

int fail(const std::string& message) {
  std::fprintf(stderr, "heed tokenize: %s\n", message.c_str());
  return kExitError;
}

std::string line_prefix(size_t number) { return "line " + std::to_string(number) + ": "; }

std::string pieces_text(const std::vector<std::string>& pieces) {
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) out += (i ? " " : "") + token_escaped(pieces[i]);
  return out;
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out;
}

// Writes one output line; flushed when no further input is waiting, so a program feeding the pipe
// a line at a time gets each answer before it sends the next.
void write_line(const std::string& text, LineReader& input) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
  if (!input.ready()) std::fflush(stdout);
}

int encode_lines(const Tokenizer& tokenizer, Columns columns) {
  LineReader input(STDIN_FILENO);
  std::string line;
  std::vector<std::string> pieces;
  std::vector<int32_t> ids;
  for (size_t number = 1; input.next(&line); ++number) {
    const Status st = tokenizer.encode_with_pieces(line, &pieces, &ids);
    if (!st) return fail(line_prefix(number) + st.message());
    switch (columns) {
      case Columns::kBoth: write_line(pieces_text(pieces) + "\t" + ids_text(ids), input); break;
      case Columns::kPieces: write_line(pieces_text(pieces), input); break;
      case Columns::kIds: write_line(ids_text(ids), input); break;
    }
  }
  if (!input.error().empty()) return fail("reading the input: " + input.error());
  return kExitOk;
}

int decode_lines(const Tokenizer& tokenizer) {
  LineReader input(STDIN_FILENO);
  std::string line, text;
  std::vector<int32_t> ids;
  for (size_t number = 1; input.next(&line); ++number) {
    if (!parse_token_ids(line, &ids)) {
      return fail(line_prefix(number) + "expected token ids (whole numbers from 0) separated by spaces or commas");
    }
    const Status st = tokenizer.decode(ids.data(), ids.size(), &text);
    if (!st) return fail(line_prefix(number) + st.message());
    write_line(line_safe(text), input);
  }
  if (!input.error().empty()) return fail("reading the input: " + input.error());
  return kExitOk;
}

int run_tokenize(const std::vector<std::string>& argv) {
  Args args("tokenize", "-m MODEL.heed [--side source|target] [--decode] [--ids-only | --pieces-only] < lines",
            kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  const auto side = get_side(args);
  if (!side) return kExitUsage;
  const bool ids_only = args.has("ids-only"), pieces_only = args.has("pieces-only");
  if (ids_only && pieces_only) return args.usage_error("give --ids-only or --pieces-only, not both");
  if (args.has("decode") && (ids_only || pieces_only)) {
    return args.usage_error("--ids-only and --pieces-only choose what text becomes, not what --decode writes");
  }

  std::unique_ptr<Model> model;
  Status st = Model::open(args.get("model"), load_options(args), &model);
  if (!st) return fail(st.message());
  std::unique_ptr<Tokenizer> tokenizer;
  st = create_tokenizer(*model, side_of(*model, *side), &tokenizer);
  if (!st) return fail(st.message());
  if (args.has("decode")) return decode_lines(*tokenizer);
  return encode_lines(*tokenizer, ids_only ? Columns::kIds : pieces_only ? Columns::kPieces : Columns::kBoth);
}

}  // namespace

HEED_REGISTER_COMMAND(tokenize, "tokenize", "show how a model's tokenizer splits text into pieces and ids, or decode ids",
                      25, run_tokenize);

}  // namespace heed::cli
