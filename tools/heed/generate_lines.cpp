#include "generate_lines.h"

#include "chat_messages.h"

#include <cstdio>

#include "command.h"
#include "line_progress.h"
#include "line_reader.h"
#include "text_escape.h"

namespace heed::cli {

namespace {

struct Prompt {
  size_t line = 0;  // 1-based
  std::string text;
  std::vector<int32_t> ids;
  std::string error;  // set: the line cannot be generated
  std::vector<int32_t> output;  // the continuation, copied out of the generator's views
};

// The continuation's text as the streaming output shows it, cut before the first stop string.
std::string continuation_text(const Generator& g, const Prompt& p, const std::vector<std::string>& stop) {
  StopStrings stops(stop);
  std::string text;
  int32_t previous = p.ids.empty() ? g.bos_id() : p.ids.back();
  for (size_t i = 0; i < p.output.size(); ++i) {
    // The continuation's first whitespace token gets no separating space, as in streaming.
    const bool first_word = i == 0 && g.tokenizer_kind() == TokenizerKind::Whitespace;
    if (stops.feed(g.piece(first_word ? -1 : previous, p.output[i]), &text)) return text;
    previous = p.output[i];
  }
  stops.flush(&text);
  return text;
}

void write_line(const Generator& g, const Prompt& p, const GenerateLinesSettings& s) {
  std::string line;
  if (p.error.empty() && s.ids) {
    std::vector<int32_t> ids = s.echo ? p.ids : std::vector<int32_t>();
    ids.insert(ids.end(), p.output.begin(), p.output.end());
    for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
  } else if (p.error.empty()) {
    if (s.echo) line = p.text + (g.tokenizer_kind() == TokenizerKind::Whitespace && !p.text.empty() ? " " : "");
    line += continuation_text(g, p, s.stop);
  }
  line = line_safe(line);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
}

// Generates the prompts that have no error, the batch at once; when the batch as a whole is
// refused, each prompt alone, so that one bad line does not take the others with it.
void generate_batch(Generator& g, const GenerateOptions& o, std::vector<Prompt>* batch) {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  std::vector<size_t> index;
  for (size_t i = 0; i < batch->size(); ++i) {
    if (!(*batch)[i].error.empty()) continue;
    ids.insert(ids.end(), (*batch)[i].ids.begin(), (*batch)[i].ids.end());
    offsets.push_back(ids.size());
    index.push_back(i);
  }
  // The results are views until the next call: copied out at once.
  std::vector<Generation> results(index.size());
  if (g.generate_batch(TokenBatch{ids.data(), offsets.data(), index.size()}, o, results.data()).is_ok()) {
    for (size_t k = 0; k < index.size(); ++k) (*batch)[index[k]].output.assign(results[k].ids, results[k].ids + results[k].length);
    return;
  }
  for (size_t k : index) {
    Prompt& p = (*batch)[k];
    const size_t one[2] = {0, p.ids.size()};
    Generation result;
    const Status st = g.generate_batch(TokenBatch{p.ids.data(), one, 1}, o, &result);
    if (st) p.output.assign(result.ids, result.ids + result.length);
    else p.error = st.message();
  }
}

}  // namespace

int generate_lines(Generator& generator, const GenerateOptions& options, const GenerateLinesSettings& settings,
                   int fd) {
  LineReader reader(fd, settings.max_line_bytes);
  LineProgress progress("heed generate", settings.progress);
  progress.start(fd);
  std::vector<Prompt> batch;
  size_t line_number = 0, failures = 0;
  bool more = true;
  while (more) {
    std::string line;
    more = reader.next(&line);
    if (more) {
      Prompt p{++line_number, std::move(line), {}, {}, {}};
      if (reader.too_long()) p.error = "longer than --max-line-bytes";
      else if (const Status st = encode_prompt(generator, p.text, settings.chat, &p.ids); !st) p.error = st.message();
      batch.push_back(std::move(p));
    }
    // Generate when the batch is full, at the end, or when the next line is not there yet.
    if (batch.empty() || (more && batch.size() < settings.batch && reader.ready())) continue;
    generate_batch(generator, options, &batch);
    progress.clear();  // output and messages may go to the same terminal
    for (const Prompt& p : batch) {
      if (!p.error.empty()) {
        std::fprintf(stderr, "heed generate: line %zu: %s\n", p.line, p.error.c_str());
        ++failures;
      }
      write_line(generator, p, settings);
    }
    std::fflush(stdout);
    progress.update(line_number, reader.consumed());
    batch.clear();
  }
  progress.finish();
  if (!reader.error().empty()) {
    std::fprintf(stderr, "heed generate: reading stdin: %s\n", reader.error().c_str());
    return kExitError;
  }
  return failures == 0 ? kExitOk : kExitError;
}

}  // namespace heed::cli
