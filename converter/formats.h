// The source formats `heed convert` reads, in one registry: each has a name (`--from`), a
// description, a detector (does this path look like one?) and a reader into the NeutralModel.
// The command line, the fuzzers and every other caller resolve formats here.
#pragma once

#include <string>
#include <vector>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert {

struct SourceFormat {
  const char* name;
  const char* description;
  bool (*detect)(const std::string& path);
  Status (*read)(const std::string& path, NeutralModel* out);
};

const std::vector<SourceFormat>& source_formats();
// "ct2, llama2c, ..." for messages and help.
std::string format_names();
// The format named `name` (kInvalidArgument naming the supported ones when there is none).
Status find_format(const std::string& name, const SourceFormat** out);
// The format `path` looks like (kInvalidArgument asking for --from when none does).
Status detect_format(const std::string& path, const SourceFormat** out);

}  // namespace heed::convert
