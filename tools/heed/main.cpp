// `heed`: convert, inspect and run attention models on device. Subcommands live in cmd_*.cpp.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "command.h"

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
      "  heed --version        version of heed and of the file format it reads\n\n"
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
    std::printf("heed %s (file format 1)\n", HEED_VERSION);
    return kExitOk;
  }
  std::vector<std::string> rest(argv + 2, argv + argc);
  for (const auto& c : commands()) {
    if (first == c.name) return c.run(rest);
  }
  std::fprintf(stderr, "heed: unknown command '%s' (see 'heed --help')\n", first.c_str());
  return kExitUsage;
}
