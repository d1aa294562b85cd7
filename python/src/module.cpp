// heed._heed: the C++ side of the Python package. The classes here are thin: options arrive as
// checked plain values from the Python layer (python/heed/), results leave as Python lists and
// NumPy arrays, and the GIL is released while heed computes.
#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_heed, m) {
  m.doc() = "heed's C++ runtime and converter (use the classes of the heed package)";
  heed::python::bind_model(m);
  heed::python::bind_translator(m);
  heed::python::bind_generator(m);
  heed::python::bind_embedder(m);
  heed::python::bind_convert(m);
}
