// The command registry that tools/heed/main.cpp defines, without its main(): lets a fuzzer link
// cmd_inspect.cpp and run `heed inspect` in process.
#include "command.h"

namespace heed::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

bool register_command(const Command& command) {
  registry().push_back(command);
  return true;
}

const std::vector<Command>& commands() { return registry(); }

}  // namespace heed::cli
