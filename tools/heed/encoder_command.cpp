#include "encoder_command.h"

#include <cstdio>

#include <unistd.h>

#include "command.h"
#include "line_progress.h"
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
      no_progress_option(),
  };
}

namespace {

// Answers a batch; when it fails, answers its lines one by one, so a bad line costs only its own
// answer: an empty record and a message with its line number. Answers write nothing before they
// succeed. Returns whether every line was answered.
bool answer_batch(const char* command, const AnswerLines& answer, const std::vector<std::string>& lines,
                  size_t first) {
  if (answer(lines, first)) return true;
  bool all = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Status st = answer({lines[i]}, first + i);
    if (st) continue;
    std::fputs("{}\n", stdout);
    std::fprintf(stderr, "heed %s: line %zu: %s: written as an empty record\n", command, first + i,
                 st.message().c_str());
    all = false;
  }
  return all;
}

}  // namespace

int answer_stdin_lines(const char* command, size_t max_batch, bool progress, const AnswerLines& answer) {
  std::vector<std::string> lines;
  std::string line;
  size_t number = 0;
  bool lost = false;  // a line was answered with an empty record: exit status 1 at the end
  LineReader input(STDIN_FILENO);
  LineProgress shown(std::string("heed ") + command, progress);
  shown.start(STDIN_FILENO);
  const auto flush = [&]() {
    if (lines.empty()) return;
    shown.clear();  // output and messages may go to the same terminal
    lost = !answer_batch(command, answer, lines, number + 1 - lines.size()) || lost;
    std::fflush(stdout);
    shown.update(number, input.consumed());
    lines.clear();
  };
  for (;;) {
    if (!lines.empty() && !input.ready()) flush();  // the next line is not there yet
    if (!input.next(&line)) break;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() == max_batch) flush();
  }
  flush();
  shown.finish();
  if (!input.error().empty()) {
    std::fprintf(stderr, "heed %s: reading the input: %s\n", command, input.error().c_str());
    return kExitError;
  }
  return lost ? kExitError : kExitOk;
}

}  // namespace heed::cli
