// The parts of the extension module heed._heed, one per API (module.cpp calls them).
#pragma once

#include <nanobind/nanobind.h>

namespace heed::python {

void bind_model(nanobind::module_& m);
void bind_translator(nanobind::module_& m);
void bind_generator(nanobind::module_& m);
void bind_embedder(nanobind::module_& m);
void bind_convert(nanobind::module_& m);

}  // namespace heed::python
