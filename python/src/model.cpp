// heed._heed.Model (model_handle.h): opened once per Python model object; sessions share it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "errors.h"
#include "model_handle.h"

namespace nb = nanobind;

namespace heed::python {
namespace {

ModelHandle open_model(const std::string& path, bool use_mmap) {
  LoadOptions load;
  load.use_mmap = use_mmap;
  std::unique_ptr<Model> model;
  Status s;
  {
    nb::gil_scoped_release release;
    s = Model::open(path, load, &model);
  }
  check(s);
  return ModelHandle{std::shared_ptr<const Model>(std::move(model))};
}

}  // namespace

void bind_model(nb::module_& m) {
  nb::class_<ModelHandle>(m, "Model")
      .def("__init__", [](ModelHandle* self, const std::string& path, bool use_mmap) {
        new (self) ModelHandle(open_model(path, use_mmap));
      }, nb::arg("path"), nb::arg("use_mmap"));
}

}  // namespace heed::python
