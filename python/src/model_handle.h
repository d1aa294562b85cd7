// heed._heed.Model: one opened .heed file that every session of a Python Translator or Generator
// plans on, so a model object holds one copy of the weights whatever its session count (a model
// read into memory, as a converted CTranslate2 folder is, would otherwise be read again per session).
#pragma once

#include <memory>

#include "heed/model.h"

namespace heed::python {

struct ModelHandle {
  std::shared_ptr<const Model> model;
};

}  // namespace heed::python
