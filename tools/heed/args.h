// The options of heed's subcommands, declared as OptionSpecs and parsed by CLI11: --name VALUE,
// --name=VALUE, -n VALUE, -nVALUE, flags, positionals ('--' ends the options). Unknown options,
// missing values and malformed numbers are usage errors (exit 2) with a message naming them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "heed/model.h"
#include "heed/step_model.h"
#include "heed/tokenizer.h"

namespace heed::cli {

struct OptionSpec {
  std::string name;       // long name without dashes, e.g. "beam"
  char short_name = 0;    // e.g. 'm', or 0
  bool takes_value = true;
  std::string value_name; // shown in help, e.g. "N"
  std::string help;
  // Other long names that mean this option (older spellings). With `deprecated`, using one prints
  // a note naming the new spelling.
  std::vector<std::string> aliases = {};
  bool deprecated = false;
};

class Args {
 public:
  Args(std::string command, std::string usage_line, std::string description, std::vector<OptionSpec> specs);

  // Parses; on error prints "heed COMMAND: message" and a hint to stderr and returns false.
  // `--help`/`-h` anywhere prints the help and sets help_requested() (even beside an error).
  bool parse(const std::vector<std::string>& args);
  bool help_requested() const { return help_requested_; }
  void print_help() const;
  // Prints "heed COMMAND: message" to stderr; returns kExitUsage for `return args.usage_error(..)`.
  int usage_error(const std::string& message) const;

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The value given last (options given twice: the last one counts, as in most tools).
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // Every value of a repeatable option, in command-line order.
  std::vector<std::string> get_all(const std::string& name) const;
  // Integer option within [min, max]; on a malformed or out-of-range value reports a usage error
  // and returns nullopt.
  std::optional<int64_t> get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  // A finite number; NaN, infinities and malformed values are usage errors naming the option.
  std::optional<double> get_double(const std::string& name, double fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::string command_, usage_line_, description_;
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
  bool help_requested_ = false;
};

// The options every command that runs a model shares: -m/--model (its help says what the model is
// for) and -t/--threads. A short flag means one thing in every command (tests/tools checks it).
OptionSpec model_option(const std::string& help = "the model (required)");
OptionSpec threads_option();
// --spin-us: how long idle worker threads spin before they sleep (the sessions' spin_microseconds).
OptionSpec spin_option();
// Its value, checked (nullopt: the usage error was printed).
std::optional<uint32_t> spin_flag(const Args& args);
// Parses the command line of a command that runs one model (-m MODEL, no positional argument).
// Returns the exit code to leave with (help printed, usage error), or nullopt to go on.
std::optional<int> parse_model_command(Args& args, const std::vector<std::string>& argv);

// --no-mmap: read the model into memory instead of mapping it (for files that may change while
// open: a mapped model file must not be truncated or rewritten in place).
OptionSpec no_mmap_option();
LoadOptions load_options(const Args& args);

// --no-progress: no progress line on stderr (line_progress.h) for commands that read many lines.
OptionSpec no_progress_option();

// --max-source-len / --max-len above the model's positions: a usage error naming the flag as typed
// (the session's own message names its fields); returns the exit code, or nullopt to go on.
// Lengths left to the model (0: Translator::session_limits) fit by construction.
std::optional<int> check_length_flags(const Args& args, const Model& model, const StepModelLimits& limits);

// --backend auto|heed|xnnpack, shared by translate, generate, score and bench.
OptionSpec backend_option();
// Its value (default auto); a usage error listing the choices, and nullopt, for anything else.
std::optional<Backend> get_backend(const Args& args);

// --side source|target, for the commands that show a model's tokenizer or vocabulary.
OptionSpec side_option();
// Its value (default source); a usage error, and nullopt, for anything else.
std::optional<TokenizerSide> get_side(const Args& args);
// The side of `model` that `side` names: itself for translation models; the target side, where
// models with one vocabulary (language models, BERT) keep it, for every other model.
TokenizerSide side_of(const Model& model, TokenizerSide side);

// Token ids written "1,2, 3" or "1 2 3" (--prompt-ids, tokenize --decode) into *ids; false on
// anything but whole numbers from 0 to INT32_MAX separated by commas or whitespace.
bool parse_token_ids(const std::string& text, std::vector<int32_t>* ids);

}  // namespace heed::cli
