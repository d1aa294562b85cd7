// The XNNPACK f32 GEMM backend (runtime/src/layers/xnnpack_gemm.*, Backend in heed/step_model.h):
// a Linear on the XNNPACK path against a double-precision loop and against heed's own gemm_f32 at
// odd shapes, every activation, with and without the residual add, 1 and 3 threads; whole sessions
// with backend xnnpack, heed and auto agree; the path is only taken where it can be; the mapped
// weights' pages are released once XNNPACK holds its copy.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "models/step_model_factory.h"
#include "layers/linear.h"
#include "layers/xnnpack_gemm.h"
#include "heed_writer.h"
#include "session_helpers.h"
#include "test_paths.h"
#include "threading/thread_pool.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

using kernels::Activation;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = u(rng);
  return v;
}

// y (row stride ldy) = act(x W^T + b) (+ y) in double, activations none and ReLU.
void reference(const TensorView& w, const TensorView* b, const float* x, size_t m, size_t ldx, float* y,
               size_t ldy, Activation act, bool accumulate) {
  const size_t out = w.shape[0], in = w.shape[1];
  const float* wf = static_cast<const float*>(w.data);
  for (size_t r = 0; r < m; ++r) {
    for (size_t n = 0; n < out; ++n) {
      double s = b != nullptr ? static_cast<const float*>(b->data)[n] : 0.0;
      for (size_t k = 0; k < in; ++k) s += static_cast<double>(x[r * ldx + k]) * wf[n * in + k];
      if (act == Activation::kRelu && s < 0) s = 0;
      y[r * ldy + n] = static_cast<float>((accumulate ? y[r * ldy + n] : 0.0) + s);
    }
  }
}

TinyOptions odd_model() {
  TinyOptions o;
  o.d_model = 20;  // 20 x 37, 37 x 20 and 29 x 20 layers: no multiple of any SIMD width
  o.num_heads = 4;
  o.ffn_dim = 37;
  o.target_vocab = 29;
  return o;
}

TEST_CASE("XNNPACK Linear matches a double loop and heed's gemm_f32 at odd shapes") {
  if (!layers::XnnpackGemm::available()) {
    WARN("built without XNNPACK (or the CPU is unsupported): skipped");
    return;
  }
  const LoadedModel loaded = load_model(make_tiny_model(odd_model()));
  const kernels::KernelTable& k = kernels::best();
  for (const char* prefix : {"decoder.layers.0.ffn.in", "decoder.layers.1.ffn.out", "decoder.output"}) {
    const TensorView* w = find_tensor(*loaded.model, std::string(prefix) + ".weight");
    const TensorView* b = find_tensor(*loaded.model, std::string(prefix) + ".bias");
    REQUIRE(w != nullptr);
    const size_t out = w->shape[0], in = w->shape[1];
    layers::Linear heed_linear, xnn_linear;
    REQUIRE(heed_linear.load(*loaded.model, prefix, out, in).is_ok());
    REQUIRE(xnn_linear.load(*loaded.model, prefix, out, in).is_ok());
    REQUIRE(xnn_linear.use_xnnpack(1).is_ok());
    REQUIRE(xnn_linear.uses_xnnpack());
    for (size_t threads : {1, 3}) {
      std::unique_ptr<threading::ThreadPool> pool;
      REQUIRE(threading::ThreadPool::create({threads}, &pool).is_ok());
      REQUIRE(pool->start_library_pool().is_ok());
      for (size_t m : {1, 3, 4, 5, 13}) {
        // XNNPACK may read kXnnpackReadSlack bytes past the last input row.
        std::vector<float> x = random_floats(m * in + layers::kXnnpackReadSlack / sizeof(float), 7 + m);
        const std::vector<float> y0 = random_floats(m * out, 11 + m);
        std::vector<float> staging(m * out);
        const layers::QuantScratch scratch{nullptr, nullptr, m, in, staging.data(), staging.size()};
        for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kGelu, Activation::kSilu}) {
          for (bool accumulate : {false, true}) {
            INFO(prefix << " m " << m << " threads " << threads << " activation " << static_cast<int>(act)
                        << " accumulate " << accumulate);
            std::vector<float> got = y0, want = y0;
            xnn_linear.forward(k, x.data(), m, in, got.data(), out, act, accumulate, scratch, pool.get());
            heed_linear.forward(k, x.data(), m, in, want.data(), out, act, accumulate, scratch, pool.get());
            for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(1e-5));
            if (act == Activation::kNone || act == Activation::kRelu) {
              std::vector<float> ref = y0;
              reference(*w, b, x.data(), m, in, ref.data(), out, act, accumulate);
              for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(ref[i]).margin(1e-5));
            }
          }
        }
      }
    }
  }
}

TEST_CASE("XNNPACK Linear: calls it cannot take run heed's kernel with the same result") {
  if (!layers::XnnpackGemm::available()) {
    WARN("built without XNNPACK (or the CPU is unsupported): skipped");
    return;
  }
  const LoadedModel loaded = load_model(make_tiny_model(odd_model()));
  const kernels::KernelTable& k = kernels::best();
  const char* prefix = "decoder.layers.0.ffn.out";  // [20, 37]
  const TensorView* w = find_tensor(*loaded.model, std::string(prefix) + ".weight");
  const TensorView* b = find_tensor(*loaded.model, std::string(prefix) + ".bias");
  const size_t out = 20, in = 37, m = 6;
  layers::Linear l;
  REQUIRE(l.load(*loaded.model, prefix, out, in).is_ok());
  REQUIRE(l.use_xnnpack(4).is_ok());
  const size_t ldx = in + 3, ldy = out + 5;  // strided rows: XNNPACK's strides are fixed at creation
  const std::vector<float> x = random_floats(m * ldx + 16, 3);
  const std::vector<float> y0 = random_floats(m * ldy, 5);
  const layers::QuantScratch no_staging{nullptr, nullptr, m, in};
  for (bool accumulate : {false, true}) {
    std::vector<float> got = y0, ref = y0;
    l.forward(k, x.data(), m, ldx, got.data(), ldy, Activation::kNone, accumulate, no_staging);
    reference(*w, b, x.data(), m, ldx, ref.data(), ldy, Activation::kNone, accumulate);
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(ref[i]).margin(1e-5));
  }
  // Contiguous, but accumulate without staging room, and below min_rows.
  for (size_t rows : {size_t{6}, size_t{3}}) {
    std::vector<float> got = random_floats(rows * out, 9), ref = got;
    l.forward(k, x.data(), rows, in, got.data(), out, Activation::kNone, /*accumulate=*/rows == 6, no_staging);
    reference(*w, b, x.data(), rows, in, ref.data(), out, Activation::kNone, rows == 6);
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(ref[i]).margin(1e-5));
  }
}

#if defined(__x86_64__)
// How many of the pages wholly inside [p, p + bytes) this process has mapped in (the present bit of
// /proc/self/pagemap). Host only: qemu-user, which runs the ARM tests, emulates neither pagemap nor
// MADV_DONTNEED.
size_t resident_pages(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page, end = (reinterpret_cast<uintptr_t>(p) + bytes) / page;
  const int fd = ::open("/proc/self/pagemap", O_RDONLY);
  REQUIRE(fd >= 0);
  size_t present = 0;
  for (uintptr_t i = begin; i < end; ++i) {
    uint64_t entry = 0;
    REQUIRE(::pread(fd, &entry, sizeof entry, static_cast<off_t>(i * sizeof entry)) == sizeof entry);
    present += (entry >> 63) & 1;
  }
  ::close(fd);
  return present;
}
#endif

TEST_CASE("XNNPACK Linear over a mapped file releases the weights' pages; results unchanged") {
  if (!layers::XnnpackGemm::available()) {
    WARN("built without XNNPACK (or the CPU is unsupported): skipped");
    return;
  }
  TinyOptions o;
  o.d_model = 128;
  o.num_heads = 4;
  o.ffn_dim = 1000;  // ffn.in: 1000 x 128 floats = 500 KiB, many whole pages
  std::vector<uint8_t> bytes;
  REQUIRE(convert::serialize_heed(make_tiny_model(o), &bytes).is_ok());
  const std::string path = temp_dir() + "/model.heed";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
    REQUIRE(std::fclose(f) == 0);
  }
  std::unique_ptr<Model> mapped;
  REQUIRE(Model::open(path, LoadOptions{}, &mapped).is_ok());
  REQUIRE(mapped->is_mapped());
  const char* prefix = "decoder.layers.0.ffn.in";
  const TensorView* w = find_tensor(*mapped, std::string(prefix) + ".weight");
  const TensorView* b = find_tensor(*mapped, std::string(prefix) + ".bias");
  REQUIRE(w != nullptr);
  const size_t out = w->shape[0], in = w->shape[1], m = 3;
  const size_t weight_bytes = out * in * sizeof(float);
  // The same weights from the buffer (not mapped: use_xnnpack must leave that memory alone).
  std::unique_ptr<Model> unmapped;
  REQUIRE(Model::from_bytes(bytes.data(), bytes.size(), &unmapped).is_ok());

  layers::Linear xnn, heed_after, from_buffer;
  REQUIRE(xnn.load(*mapped, prefix, out, in).is_ok());
  REQUIRE(heed_after.load(*mapped, prefix, out, in).is_ok());
  REQUIRE(from_buffer.load(*unmapped, prefix, out, in).is_ok());
#if defined(__x86_64__)
  volatile float sink = 0;
  for (size_t i = 0; i < out * in; ++i) sink = sink + static_cast<const float*>(w->data)[i];
  const size_t before = resident_pages(w->data, weight_bytes);
  CHECK(before * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) + 2 * 4096 >= weight_bytes);
#endif
  REQUIRE(xnn.use_xnnpack(1).is_ok());
  REQUIRE(from_buffer.use_xnnpack(1).is_ok());
#if defined(__x86_64__)
  CHECK(resident_pages(w->data, weight_bytes) == 0);
#endif
  const kernels::KernelTable& k = kernels::best();
  std::vector<float> x = random_floats(m * in + layers::kXnnpackReadSlack / sizeof(float), 21);
  const layers::QuantScratch scratch{nullptr, nullptr, m, in};
  std::vector<float> got(m * out), again(m * out), buffered(m * out), ref(m * out);
  xnn.forward(k, x.data(), m, in, got.data(), out, Activation::kNone, false, scratch);
  // heed's kernel on the released pages reads them back from the file.
  heed_after.forward(k, x.data(), m, in, again.data(), out, Activation::kNone, false, scratch);
  from_buffer.forward(k, x.data(), m, in, buffered.data(), out, Activation::kNone, false, scratch);
  reference(*w, b, x.data(), m, in, ref.data(), out, Activation::kNone, false);
  for (size_t i = 0; i < ref.size(); ++i) {
    REQUIRE(got[i] == Approx(ref[i]).margin(1e-5));
    REQUIRE(again[i] == Approx(ref[i]).margin(1e-5));
    REQUIRE(buffered[i] == got[i]);
  }
}

// Runs `steps` greedy steps of a session with `backend`, returning every step's log-probs.
std::vector<float> run_session(const Model& model, Backend backend, size_t threads) {
  StepModelLimits limits{3, 2, 12, 6};
  limits.backend = backend;
  auto session = make_session(model, limits, {}, threads);
  const BatchStorage storage = make_batch({{3, 4, 5, 6, 7, 8, 9, 10, 11}, {5, 6}, {7, 8, 9, 10}});
  const TokenBatch batch = storage.batch();
  REQUIRE(session->start(&batch, 3, 2).is_ok());
  const size_t rows = 6, V = session->vocab_size();
  std::vector<int32_t> ids(rows, session->bos_id());
  std::vector<float> lp(rows * V), all;
  for (size_t step = 0; step < 6; ++step) {
    session->step(ids.data(), rows, step, lp.data());
    all.insert(all.end(), lp.begin(), lp.end());
    for (size_t r = 0; r < rows; ++r) ids[r] = static_cast<int32_t>((step * 5 + r * 3 + 1) % V);
  }
  return all;
}

TEST_CASE("sessions with backend xnnpack, auto and heed agree; xnnpack is identical for any thread count") {
  TinyOptions relu = odd_model();
  TinyOptions gelu_post_norm = odd_model();
  gelu_post_norm.activation = fb::Activation::GELU;
  gelu_post_norm.pre_norm = false;
  gelu_post_norm.final_norm = false;
  for (const TinyOptions* o : {&relu, &gelu_post_norm}) {
    const LoadedModel loaded = load_model(make_tiny_model(*o));
    const std::vector<float> heed = run_session(*loaded.model, Backend::kHeed, 1);
    if (!built_with_xnnpack()) {
      std::unique_ptr<StepModel> m;
      StepModelLimits limits{1, 1, 4, 4};
      limits.backend = Backend::kXnnpack;
      const Status s = create_step_model(*loaded.model, limits, {}, &m);
      CHECK(s.code() == StatusCode::kInvalidArgument);
      CHECK(s.message().find("without XNNPACK") != std::string::npos);
      continue;
    }
    const std::vector<float> xnn = run_session(*loaded.model, Backend::kXnnpack, 1);
    const std::vector<float> automatic = run_session(*loaded.model, Backend::kAuto, 1);
    REQUIRE(xnn.size() == heed.size());
    for (size_t i = 0; i < heed.size(); ++i) {
      REQUIRE(xnn[i] == Approx(heed[i]).margin(1e-4));
      REQUIRE(automatic[i] == Approx(heed[i]).margin(1e-4));
    }
    for (size_t threads : {2, 3}) {
      const std::vector<float> many = run_session(*loaded.model, Backend::kXnnpack, threads);
      CHECK(std::memcmp(many.data(), xnn.data(), xnn.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("backend names") {
  Backend b = Backend::kHeed;
  for (Backend want : {Backend::kAuto, Backend::kHeed, Backend::kXnnpack}) {
    REQUIRE(parse_backend(backend_name(want), &b));
    CHECK(b == want);
  }
  CHECK_FALSE(parse_backend("cuda", &b));
  CHECK_FALSE(parse_backend(nullptr, &b));
}

}  // namespace
}  // namespace heed::test
