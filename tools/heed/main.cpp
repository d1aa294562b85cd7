// `heed`: convert, inspect and run attention models on device. Subcommands live in cmd_*.cpp.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "command.h"
#include "heed/model.h"

namespace heed::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

bool register_command(const Command& command) {
  registry().push_back(command);
  std::sort(registry().begin(), registry().end(),
            [](const Command& a, const Command& b) { return a.order < b.order; });
  return true;
}

const std::vector<Command>& commands() { return registry(); }

static void print_help() {
  std::printf(
      "usage: heed COMMAND [options]\n\n"
      "heed runs trained attention models (translation, generation, embeddings) on small devices.\n"
      "Convert a model once with `heed convert`, copy the .heed file to the device, run it there.\n\n"
      "commands:\n");
  for (const auto& c : commands()) std::printf("  %-12s %s\n", c.name, c.summary);
  std::printf(
      "\n  heed COMMAND --help   options of one command\n"
      "  heed --version        version of heed, the .heed file formats it reads and the one it writes\n\n"
      "exit codes: 0 success, 1 error while running, 2 wrong usage\n");
}

}  // namespace heed::cli

int main(int argc, char** argv) {
  using namespace heed::cli;
  if (argc < 2) {
    print_help();
    return kExitUsage;
  }
  std::string first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    print_help();
    return kExitOk;
  }
  if (first == "--version" || first == "-V") {
    // Every format from 1 up to the current one loads (older files lack only newer sections).
    std::printf("heed %s (reads .heed file formats 1 to %u, writes %u)\n", HEED_VERSION, heed::kFormatVersion,
                heed::kFormatVersion);
    return kExitOk;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  for (const auto& c : commands()) {
    if (first == c.name) return c.run(rest);
  }
  std::fprintf(stderr, "heed: unknown command '%s' (see 'heed --help')\n", first.c_str());
  return kExitUsage;
}
