// Subcommands of the `heed` command line. Each cmd_*.cpp registers one with HEED_REGISTER_COMMAND;
// main.cpp lists and dispatches them. Exit codes: 0 ok, 1 runtime error, 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace heed::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

struct Command {
  const char* name;
  const char* summary;  // one line for `heed --help`
  int order;            // position in `heed --help`
  // args: everything after the subcommand name.
  int (*run)(const std::vector<std::string>& args);
};

bool register_command(const Command& command);
const std::vector<Command>& commands();

}  // namespace heed::cli

#define HEED_REGISTER_COMMAND(ident, ...) \
  static const bool heed_registered_##ident = ::heed::cli::register_command(::heed::cli::Command{__VA_ARGS__})
