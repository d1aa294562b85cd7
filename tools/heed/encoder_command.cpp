#include "encoder_command.h"

#include <cstdio>

#include <unistd.h>

#include "command.h"
#include "line_reader.h"

namespace heed::cli {

std::vector<OptionSpec> encoder_session_specs() {
  return {
      {"batch", 0, true, "N", "sentences per encoder call (default 8)"},
      {"max-source-len", 0, true, "N", "tokens per sentence, [CLS] and [SEP] included (default: the model's limit)",
       {"max-length"}, true},
      threads_option(),
      spin_option(),
      no_mmap_option(),
  };
}

int answer_stdin_lines(const char* command, size_t max_batch, const AnswerLines& answer) {
  std::vector<std::string> lines;
  std::string line;
  size_t number = 0;
  const auto flush = [&]() -> bool {
    if (lines.empty()) return true;
    const Status st = answer(lines, number + 1 - lines.size());
    std::fflush(stdout);
    lines.clear();
    if (st) return true;
    std::fprintf(stderr, "heed %s: input around line %zu: %s\n", command, number, st.message().c_str());
    return false;
  };
  LineReader input(STDIN_FILENO);
  for (;;) {
    if (!lines.empty() && !input.ready() && !flush()) return kExitError;  // the next line is not there yet
    if (!input.next(&line)) break;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == max_batch && !flush()) return kExitError;
  }
  if (!flush()) return kExitError;
  if (!input.error().empty()) {
    std::fprintf(stderr, "heed %s: reading the input: %s\n", command, input.error().c_str());
    return kExitError;
  }
  return kExitOk;
}

}  // namespace heed::cli
