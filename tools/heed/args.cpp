#include "args.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "command.h"

namespace heed::cli {

namespace {

// One CLI11 option: a spec's main name (with its short name) or one of its aliases, declared apart
// so that a deprecated alias can be named in the note.
struct Declared {
  const OptionSpec* spec;
  CLI::Option* option;
  bool alias;
};

CLI::Option* declare(CLI::App& app, const OptionSpec& spec, const std::string& names) {
  if (!spec.takes_value) {
    return app.add_flag(names)->disable_flag_override()->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }
  const std::string type = spec.value_name.empty() ? "VALUE" : spec.value_name;
  return app.add_option(names)->type_name(type)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::vector<Declared> declare_all(CLI::App& app, const std::vector<OptionSpec>& specs) {
  std::vector<Declared> declared;
  for (const OptionSpec& s : specs) {
    const std::string short_name = s.short_name ? std::string("-") + s.short_name + "," : "";
    declared.push_back({&s, declare(app, s, short_name + "--" + s.name), false});
    for (const std::string& a : s.aliases) declared.push_back({&s, declare(app, s, "--" + a), true});
  }
  return declared;
}

// CLI11's error as heed words it: "unknown option '--x'", "option '--x' needs a value (N)".
std::string describe(const CLI::ParseError& e, const CLI::App& app, const std::vector<Declared>& declared) {
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    for (const std::string& extra : app.remaining()) {
      if (extra.size() > 1 && extra[0] == '-') return "unknown option '" + extra.substr(0, extra.find('=')) + "'";
    }
  }
  const std::string what = e.what();
  for (const Declared& d : declared) {
    const std::string name = d.option->get_name();  // "--model"
    if (what.rfind(name + ":", 0) == 0) {
      return "option '" + name + "' needs a value (" + d.option->get_type_name() + ")";
    }
    if (what.rfind(name.substr(2) + " was given a disallowed flag override", 0) == 0) {
      return "option '" + name + "' takes no value";
    }
  }
  return what;
}

}  // namespace

Args::Args(std::string command, std::string usage_line, std::string description, std::vector<OptionSpec> specs)
    : command_(std::move(command)), usage_line_(std::move(usage_line)),
      description_(std::move(description)), specs_(std::move(specs)) {}

int Args::usage_error(const std::string& message) const {
  std::fprintf(stderr, "heed %s: %s\n(see 'heed %s --help')\n", command_.c_str(), message.c_str(), command_.c_str());
  return kExitUsage;
}

bool Args::parse(const std::vector<std::string>& args) {
  CLI::App app(description_, "heed " + command_);
  app.set_help_flag();  // heed's own help (print_help), also when the line has an error
  const CLI::Option* help = app.add_flag("-h,--help");
  const std::vector<Declared> declared = declare_all(app, specs_);
  app.add_option("arguments", positionals_);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (help->count() == 0) {
      usage_error(describe(e, app, declared));
      return false;
    }
  }
  if (help->count() != 0) {
    help_requested_ = true;
    print_help();
    return true;
  }
  // Values in command-line order, a spec's aliases with its main name (the last one counts).
  std::map<const CLI::Option*, size_t> taken;
  for (const CLI::Option* option : app.parse_order()) {
    for (const Declared& d : declared) {
      if (d.option != option) continue;
      const size_t i = taken[option]++;
      values_[d.spec->name].push_back(d.spec->takes_value ? option->results().at(i) : "");
      if (d.alias && d.spec->deprecated) {
        std::fprintf(stderr, "heed %s: note: '%s' is now '--%s'\n", command_.c_str(), option->get_name().c_str(),
                     d.spec->name.c_str());
      }
    }
  }
  return true;
}

void Args::print_help() const {
  std::printf("usage: heed %s %s\n\n%s\n", command_.c_str(), usage_line_.c_str(), description_.c_str());
  if (specs_.empty()) return;
  std::printf("\noptions:\n");
  for (const auto& s : specs_) {
    std::string left = "  ";
    left += s.short_name ? std::string("-") + s.short_name + ", " : "    ";
    left += "--" + s.name;
    if (s.takes_value) left += " " + (s.value_name.empty() ? std::string("VALUE") : s.value_name);
    if (left.size() < 28) left.resize(28, ' '); else left += "\n" + std::string(28, ' ');
    std::string help = s.help;
    for (const auto& a : s.aliases) help += (&a == &s.aliases.front() ? " (also --" : ", --") + a;
    if (!s.aliases.empty()) help += s.deprecated ? ", the older spelling)" : ")";
    std::printf("%s%s\n", left.c_str(), help.c_str());
  }
  std::printf("  -h, --help                show this help\n");
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::get_all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<int64_t> Args::get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second.back();
  int64_t x = 0;
  const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || error != std::errc() || end != v.data() + v.size() || x < min || x > max) {
    usage_error("option '--" + name + "' wants a whole number from " + std::to_string(min) + " to " +
                std::to_string(max) + ", got '" + v + "'");
    return std::nullopt;
  }
  return x;
}

std::optional<double> Args::get_double(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& v = it->second.back();
  double x = 0;
  const auto [end, error] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || error != std::errc() || end != v.data() + v.size()) {
    usage_error("option '--" + name + "' wants a number, got '" + v + "'");
    return std::nullopt;
  }
  if (!std::isfinite(x)) {
    usage_error("option '--" + name + "' must be a finite number, got '" + v + "'");
    return std::nullopt;
  }
  return x;
}

OptionSpec model_option(const std::string& help) { return {"model", 'm', true, "MODEL.heed", help}; }

OptionSpec threads_option() {
  return {"threads", 't', true, "N", "worker threads (default 1; 0: one per physical core); same output for any N"};
}

OptionSpec spin_option() {
  return {"spin-us", 0, true, "US",
          "microseconds an idle worker thread spins waiting for work before it sleeps (default 100; 0: sleep "
          "at once, kinder to a machine busy with other programs); speed only, same output"};
}

std::optional<uint32_t> spin_flag(const Args& args) {
  const auto spin = args.get_int("spin-us", 100, 0, 1000000);
  if (!spin) return std::nullopt;
  return static_cast<uint32_t>(*spin);
}

std::optional<int> parse_model_command(Args& args, const std::vector<std::string>& argv) {
  if (!args.parse(argv)) return kExitUsage;
  if (args.help_requested()) return kExitOk;
  if (!args.positionals().empty()) return args.usage_error("unexpected argument '" + args.positionals()[0] + "'");
  if (!args.has("model")) return args.usage_error("missing --model MODEL.heed");
  return std::nullopt;
}

OptionSpec no_mmap_option() {
  return {"no-mmap", 0, false, "", "read the model into memory instead of mapping it (the file may then change)"};
}

OptionSpec no_progress_option() {
  return {"no-progress", 0, false, "",
          "no progress line on stderr (shown only when stderr is a terminal and stdin is not: lines done, "
          "lines/s and, for a file, the time left)"};
}

LoadOptions load_options(const Args& args) {
  LoadOptions options;
  options.use_mmap = !args.has("no-mmap");
  return options;
}

OptionSpec backend_option() {
  return {"backend", 0, true, "B",
          "float32 GEMMs: auto (default: XNNPACK where it runs, else heed), heed, or xnnpack (an error without it); "
          "XNNPACK packs its own copy of the float32 weights and the mapped ones are released; int8/float16 models always "
          "run heed's kernels"};
}

std::optional<Backend> get_backend(const Args& args) {
  Backend b = Backend::kAuto;
  if (!args.has("backend")) return b;
  const std::string v = args.get("backend");
  if (!parse_backend(v.c_str(), &b)) {
    args.usage_error("--backend must be auto, heed or xnnpack (got '" + v + "')");
    return std::nullopt;
  }
  if (b == Backend::kXnnpack && !built_with_xnnpack()) {
    args.usage_error("--backend xnnpack: this heed was built without XNNPACK");
    return std::nullopt;
  }
  return b;
}

OptionSpec side_option() {
  return {"side", 0, true, "SIDE",
          "source (default) or target: which tokenizer of a translation model (models with one vocabulary have one, "
          "which either names)"};
}

std::optional<TokenizerSide> get_side(const Args& args) {
  const std::string v = args.get("side", "source");
  if (v == "source") return TokenizerSide::kSource;
  if (v == "target") return TokenizerSide::kTarget;
  args.usage_error("--side must be source or target (got '" + v + "')");
  return std::nullopt;
}

TokenizerSide side_of(const Model& model, TokenizerSide side) {
  return has_source_side(model) ? side : TokenizerSide::kTarget;
}

bool parse_token_ids(const std::string& text, std::vector<int32_t>* ids) {
  const auto separator = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)); };
  ids->clear();
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && separator(text[i])) ++i;
    if (i == text.size()) break;
    size_t j = i;
    int64_t value = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && j - i < 10) {
      value = value * 10 + (text[j] - '0');
      ++j;
    }
    if (j == i || value > INT32_MAX) return false;
    if (j < text.size() && !separator(text[j])) return false;
    ids->push_back(static_cast<int32_t>(value));
    i = j;
  }
  return true;
}

// Lengths the user gave above the model's positions, named as typed (the session's own message
// names its fields). Lengths left to the model (0) fit by construction.
std::optional<int> check_length_flags(const Args& args, const Model& model, const StepModelLimits& limits) {
  const PositionLimits positions = model.position_limits();
  if (positions.source != 0 && limits.max_source_len > positions.source) {
    return args.usage_error("--max-source-len " + std::to_string(limits.max_source_len) + " exceeds the model's " +
                            std::to_string(positions.source) + " source positions");
  }
  if (positions.target != 0 && limits.max_target_len > positions.target) {
    return args.usage_error("--max-len " + std::to_string(limits.max_target_len) + " exceeds the model's " +
                            std::to_string(positions.target) + " target positions");
  }
  return std::nullopt;
}

}  // namespace heed::cli
