// heed._heed.Embedder: sentence embeddings as a NumPy float32 array [n, dim].
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "heed/embedder.h"

namespace nb = nanobind;

namespace heed::python {
namespace {

class PyEmbedder {
 public:
  PyEmbedder(const std::string& path, size_t threads, uint32_t spin_microseconds, size_t max_batch, bool use_mmap) {
    EmbedderOptions o;
    o.threads = threads;
    o.spin_microseconds = spin_microseconds;
    o.max_batch = max_batch;
    o.load.use_mmap = use_mmap;
    check(Embedder::open(path, o, &embedder_));
  }

  // pooling: "mean", "cls" or "" (the model's); normalize: 1, 0, or -1 (the model's).
  nb::ndarray<nb::numpy, float, nb::ndim<2>> encode(const std::vector<std::string>& texts, const std::string& pooling,
                                                     int normalize) {
    const Pooling p = pooling.empty() ? embedder_->default_pooling() : pooling == "cls" ? Pooling::kCls : Pooling::kMean;
    const bool n = normalize < 0 ? embedder_->default_normalize() : normalize != 0;
    auto* out = new std::vector<float>();
    Status s;
    {
      nb::gil_scoped_release release;
      s = texts.empty() ? Status::success() : embedder_->embed_text(texts, p, n, out);
    }
    if (!s.ok()) {
      delete out;
      check(s);
    }
    nb::capsule owner(out, [](void* v) noexcept { delete static_cast<std::vector<float>*>(v); });
    return nb::ndarray<nb::numpy, float, nb::ndim<2>>(out->data(), {texts.size(), embedder_->dimension()}, owner);
  }

  size_t dimension() const { return embedder_->dimension(); }
  std::string default_pooling() const { return embedder_->default_pooling() == Pooling::kCls ? "cls" : "mean"; }
  bool default_normalize() const { return embedder_->default_normalize(); }
  size_t max_length() const { return embedder_->max_length(); }

 private:
  std::unique_ptr<Embedder> embedder_;
};

}  // namespace

void bind_embedder(nb::module_& m) {
  nb::class_<PyEmbedder>(m, "Embedder")
      .def(nb::init<const std::string&, size_t, uint32_t, size_t, bool>(), nb::arg("path"), nb::arg("threads"),
           nb::arg("spin_microseconds"), nb::arg("max_batch"), nb::arg("use_mmap"))
      .def("encode", &PyEmbedder::encode)
      .def("dimension", &PyEmbedder::dimension)
      .def("default_pooling", &PyEmbedder::default_pooling)
      .def("default_normalize", &PyEmbedder::default_normalize)
      .def("max_length", &PyEmbedder::max_length);
}

}  // namespace heed::python
