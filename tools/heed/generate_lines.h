// `heed generate` without --prompt: prompts from stdin, one per line, generated --batch at a time,
// one output line per input line in the same order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "heed/generator.h"

namespace heed::cli {

struct GenerateLinesSettings {
  size_t batch = 8;
  bool ids = false;   // print the generated ids instead of text
  bool echo = false;  // print each prompt before its continuation
  bool chat = false;  // each line is a chat: a JSON array of messages (chat_messages.h)
  std::vector<std::string> stop;
  size_t max_line_bytes = size_t{1} << 20;
  bool progress = true;  // the progress line on a terminal (line_progress.h); --no-progress: false
};

// Reads prompts from `fd` and writes their continuations to stdout. A line that cannot be
// generated (too long, not tokenizable, no start token and empty) gets an empty output line and a
// message naming it on stderr; the others are generated all the same. Returns the exit code.
int generate_lines(Generator& generator, const GenerateOptions& options, const GenerateLinesSettings& settings,
                   int fd);

}  // namespace heed::cli
