// What `heed embed`, `heed classify` and `heed fill-mask` share: their session options (--batch,
// --max-source-len, --threads, --no-mmap) and the stdin loop: lines in batches of at most
// max_batch, each batch answered as soon as the next line is not there yet (a line written to an
// open pipe gets its answer without more input), '\r' before the newline dropped, a bad line
// answered with an empty record while the others are answered.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "heed/status.h"

namespace heed::cli {

// The specs of the shared options (after the command's own), --no-progress among them.
std::vector<OptionSpec> encoder_session_specs();

// Reads them into options (max_batch, max_length, threads, load); an exit code on a usage error.
template <typename Options>
std::optional<int> read_encoder_session(Args& args, Options* options) {
  const auto batch = args.get_int("batch", 8, 1, 4096);
  const auto max_length = args.get_int("max-source-len", 0, 0, 1 << 20);
  const auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  if (!batch || !max_length || !threads || !spin) return kExitUsage;
  if (*max_length == 1) return args.usage_error("--max-source-len must be at least 2 ([CLS] and [SEP])");
  options->max_batch = static_cast<size_t>(*batch);
  options->max_length = static_cast<size_t>(*max_length);
  options->threads = static_cast<size_t>(*threads);
  options->spin_microseconds = *spin;
  options->load = load_options(args);
  return std::nullopt;
}

// answer(lines, first) answers lines first .. first + lines.size() - 1 (1-based line numbers),
// writing nothing when it fails. A batch that fails is answered again line by line, like `heed
// translate`: a line that fails alone gets an empty record ("{}") and "heed COMMAND: line N: ...:
// written as an empty record" on stderr, the other lines their answers. Returns the exit code: 0,
// or 1 when a line failed or the input could not be read. `progress`: the progress line on a
// terminal (line_progress.h; false for --no-progress).
using AnswerLines = std::function<Status(const std::vector<std::string>& lines, size_t first)>;
int answer_stdin_lines(const char* command, size_t max_batch, bool progress, const AnswerLines& answer);

}  // namespace heed::cli
