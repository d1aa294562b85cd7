// Crafted broken .heed files, each with the status the loader must answer. Shared by the Catch2
// corruption tests and by make_corrupt_heed (which writes them for the `heed inspect` CLI test).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "heed/model.h"
#include "loader/model_index.h"

namespace heed::test {

struct CorruptFile {
  std::string name;              // short id, used as the file name
  std::vector<uint8_t> bytes;
  StatusCode code;               // what the loader must return
  std::string message_contains;  // a fragment the one-line message must contain
};

// Rebuilds the index of a valid .heed file after `edit` changed it, keeping the weight segment
// bytes as they were: the way to write files the writer itself refuses to produce.
std::vector<uint8_t> repack(const std::vector<uint8_t>& valid, const std::function<void(fb::ModelT&)>& edit);

// Every crafted corruption of `valid` (the sample model's bytes).
std::vector<CorruptFile> corrupt_files(const std::vector<uint8_t>& valid);

}  // namespace heed::test
