// heed's compute kernels: pure functions on raw pointers. No allocation, no I/O, no model knowledge.
//
// Every kernel has a scalar reference (kernels/ref/) that is its specification; each ISA variant
// (kernels/x86/, kernels/arm/) implements the same signature and is tested against it. dispatch.cpp
// picks one variant per kernel once, from cpuinfo, and exposes them as a table.
#pragma once

#include <cstddef>
#include <cstdint>

namespace heed::kernels {

enum class Isa : int {
  kScalar = 0,
  kNeonArmv7,     // 32-bit ARM with NEON (Raspberry Pi 2/3/4 running a 32-bit OS)
  kNeon,          // aarch64 baseline (Cortex-A53/A72)
  kNeonDotprod,   // aarch64 + SDOT (Cortex-A55/A76 and later)
  kNeonI8mm,      // aarch64 + SMMLA (Armv8.6: Cortex-A510/A710/X2 and later)
  kNeonBf16,      // kNeonI8mm + BFDOT (Armv8.6 makes both mandatory)
  kAvx2,          // x86-64 AVX2 + FMA
  kAvx512Vnni,    // x86-64 AVX-512 BW/VL + VNNI
  kAvx512Bf16,    // kAvx512Vnni + AVX512_BF16 (AMD Zen 4, Intel Cooper Lake / Sapphire Rapids and later)
  kAmx,           // kAvx512Bf16 + AMX-TILE/AMX-INT8 granted by the OS (Intel Sapphire Rapids and later)
  kCount,
};

const char* isa_name(Isa isa);

enum class Activation : int { kNone = 0, kRelu, kGelu, kGeluTanh, kSilu };

// C[m, n] = act( sum_k A[m, k] * B[n, k] * scale(m, n, k) + bias[n] ) (+ C[m, n] if accumulate)
// A: activations, int8, one scale per row (a_scales[m]), values in [-127, 127].
// B: weights, int8 row-major [N, K] (PyTorch Linear layout), values in [-127, 127];
//    group_size == 0: one scale per row, b_scales[n];
//    group_size  > 0: b_scales[n * ceil(K / group_size) + k / group_size] (group_size % 4 == 0).
// The activation applies after the bias; the accumulate add comes last (residual connection).
struct GemmI8Params {
  size_t m = 0, n = 0, k = 0;
  const int8_t* a = nullptr;
  size_t lda = 0;
  const float* a_scales = nullptr;
  const int8_t* b = nullptr;
  size_t ldb = 0;
  const float* b_scales = nullptr;
  size_t group_size = 0;
  const float* bias = nullptr;  // [n] or null
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};

// Same contract with float weights: C = act(A[M,K] . B[N,K]^T + bias) (+ C). Weight is float
// (GemmF32Params) or IEEE half precision as uint16 bit patterns (GemmF16Params).
template <class Weight>
struct GemmFloatParams {
  size_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  size_t lda = 0;
  const Weight* b = nullptr;
  size_t ldb = 0;
  const float* bias = nullptr;
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};
using GemmF32Params = GemmFloatParams<float>;
using GemmF16Params = GemmFloatParams<uint16_t>;

// Which keys a query row may attend to in the fused attention kernel. Query row t of a block sits
// at position pos(t) = position_offset + t; the visible keys are one contiguous range of the cache:
//   kNone         all kv_len keys (encoder self-attention, cross-attention)
//   kCausal       keys 0 .. pos(t) (decoder self-attention over the cache)
//   kKeyPadding   keys 0 .. key_length - 1 (a padded source sentence)
//   kLocalWindow  keys pos(t) - window .. pos(t) + window (sliding-window / local attention)
// (each clipped to the cache). A row that sees no key gets an all-zero output.
enum class AttentionMask : int { kNone = 0, kCausal, kKeyPadding, kLocalWindow };

// out[t, h, :] = softmax_j(scale * q[t, h, :] . k[j, g, :]) . v[j, g, :] over the visible j, with
// g = h / (num_heads / num_kv_heads) (grouped-query attention; num_kv_heads == num_heads is plain
// multi-head attention, 1 is multi-query). Every tensor is addressed by a row (time) stride and a
// head stride in floats, so Q/K/V can be slices of a fused QKV projection or of a cache laid out
// [time, heads, head_dim] or [heads, time, head_dim]. Scores and softmax are f32. `scores` is the
// caller's scratch of kv_len floats (kernels never allocate).
//
// Blocks of query rows: given scores_floats >= attention_block_scratch_floats(kv_len, head_dim),
// a SIMD variant may run kNone and kKeyPadding attention with at least kAttentionBlockMinRows
// query rows as two GEMMs per head and block of kAttentionBlockRows rows (Q.K^T over all visible
// keys at once, the row softmax, then P.V), on a copy of the head's keys (transposed) and values
// packed into that scratch once per head. The reference (one row at a time) stays the definition:
// the block path agrees with it to float rounding (other summation orders).
inline constexpr size_t kAttentionBlockRows = 24;
// Rows the row path runs side by side (all their scores, softmaxes, then weighted sums; each row's
// arithmetic that of the row alone), when the scores scratch holds that many rows of kv_len.
inline constexpr size_t kAttentionRowGroup = 8;
inline constexpr size_t kAttentionBlockMinRows = 4;
size_t attention_block_scratch_floats(size_t kv_len, size_t head_dim);

struct AttentionParams {
  size_t q_rows = 0, kv_len = 0;
  size_t num_heads = 0, num_kv_heads = 0, head_dim = 0;
  const float* q = nullptr;
  size_t q_row_stride = 0, q_head_stride = 0;
  const float* k = nullptr;
  size_t k_row_stride = 0, k_head_stride = 0;
  const float* v = nullptr;
  size_t v_row_stride = 0, v_head_stride = 0;
  // Non-null: key and value j of query row t at k + kv_offsets[t * kv_offsets_row_stride + j] and
  // v + the same (floats) instead of j * k_row_stride and j * v_row_stride (a K/V cache read by
  // hypothesis: each row its own table). Only the row path reads it (never blocks).
  const size_t* kv_offsets = nullptr;
  size_t kv_offsets_row_stride = 0;
  float* out = nullptr;
  size_t out_row_stride = 0, out_head_stride = 0;
  float scale = 1.0f;  // usually 1 / sqrt(head_dim)
  AttentionMask mask = AttentionMask::kNone;
  size_t position_offset = 0;  // kCausal, kLocalWindow: position of query row 0
  size_t key_length = 0;       // kKeyPadding
  size_t window = 0;           // kLocalWindow
  float* scores = nullptr;     // scratch, kv_len floats (or scores_floats)
  // Floats at `scores` when more than kv_len: room for the block path above, or for up to
  // kAttentionRowGroup rows of kv_len side by side on the row path. A call of q_rows <=
  // scores_floats / kv_len rows and one head leaves row t's softmax probabilities at
  // scores + t * kv_len (the decoder's captured cross-attention).
  size_t scores_floats = 0;
  // Every query row computed exactly as a call with that row alone would (the row path, never
  // blocks): a decoder step's beam rows, whose results must not depend on how rows are grouped.
  bool row_by_row = false;
  // The caller accepts products of bfloat16-rounded inputs (an int8 embedder's encoder on long
  // sentences: blocks/encoder.cpp). A variant
  // with bfloat16 dot products (avx512bf16, bf16) then runs the block path's two GEMMs (even head_dim)
  // on q, k, v and the softmax's exponentials rounded to bfloat16 (nearest even): products exact,
  // sums float32, each output row divided by its float32 sum of exponentials; scores stay
  // float32. Every other variant, the reference included, ignores it.
  bool bf16_products = false;
  // Non-null: a relative position bias added to the scaled scores before the softmax (MPNet's and
  // T5's): score (t, j) of head h gains relative_bias[h * relative_bias_head_stride + (kv_len - 1)
  // + j - pos(t)], pos(t) = position_offset + t, which must stay below kv_len. Each head's 2 kv_len
  // - 1 floats are indexed by distance (key j - query), so one table serves every query row.
  const float* relative_bias = nullptr;
  size_t relative_bias_head_stride = 0;
};

// Packed int8 weights (layout "16x4"), written once (by the converter, or at load time) with
// pack_i8_16x4 and read by gemm_i8_packed. Rows of B go in blocks of 16 and K in groups of 4
// bytes; byte (n, k) of the [N, K] matrix is at
//   ((n / 16) * (K4 / 4) + k / 4) * 64 + (n % 16) * 4 + k % 4,    K4 = K rounded up to 4,
// i.e. each 64-byte unit holds 4 consecutive k of 16 rows: exactly one VPDPBUSD operand (or four
// SDOT operands), so a kernel multiplies it by 4 broadcast bytes of A with no horizontal sums.
// Padding rows (up to N rounded to 16) and padding k are zero. row_sums[n] = sum_k B[n, k].
// One IEEE binary16 <-> binary32 conversion by the reference's rules (f32 -> f16 rounds to
// nearest, ties to even; f16 -> f32 is exact), for code outside the hot loops: the converter
// and the runtime's per-element reads. Bulk conversions use the f16_to_f32 / f32_to_f16 slots.
float f16_to_f32_value(uint16_t h);
uint16_t f32_to_f16_value(float x);

size_t packed_i8_16x4_bytes(size_t n, size_t k);
// Where byte (n, k) of a packed matrix with `k_total` columns lies (the formula above), and where
// the block of 16 rows holding row n starts (n a multiple of 16 starts a block).
inline size_t packed_i8_16x4_index(size_t n, size_t k, size_t k_total) {
  const size_t k4 = (k_total + 3) / 4 * 4;
  return ((n / 16) * (k4 / 4) + k / 4) * 64 + (n % 16) * 4 + k % 4;
}
inline size_t packed_i8_16x4_block(size_t n, size_t k_total) { return n / 16 * 16 * ((k_total + 3) / 4 * 4); }
void pack_i8_16x4(const int8_t* b, size_t n, size_t k, size_t ldb, int8_t* packed,
                  int32_t* row_sums);

// Activation blocks: the weights' side of every block of K, laid out as the AVX-512 VNNI kernel
// loads it (no gathering per call): record (n / 16) * ceil(K / a_block) + q holds, in lane
// l = n % 16, 128 times row n's sum over block q of the packed weights (the kernel's correction
// for shifting A to unsigned bytes) and row n's scale there (b_scales[n * blocks + q] when
// per_block, else b_scales[n]); lanes past N are 0.
struct alignas(64) BlockLanes {
  int32_t corrections[16];
  float scales[16];
};
inline size_t block_lanes_count(size_t n, size_t k, size_t a_block) {
  return (n + 15) / 16 * ((k + a_block - 1) / a_block);
}
void pack_block_lanes(const int8_t* packed, size_t n, size_t k, size_t a_block, const float* b_scales,
                      bool per_block, BlockLanes* lanes);

// gemm_i8 over packed weights: the same result as gemm_i8 with per-row scales (group_size 0).
// A's values are in [-127, 127], the range quantize_rows_i8 writes (the only producer of A here):
// the NEON kernels sum two products in one int16 lane, exact for |a| <= 127 against any weight
// (2 * 127 * 128 < 2^15) but not for -128 * -128 twice. Debug builds check it (the shared driver).
// Activation blocks (a_block > 0, a multiple of 16): A is quantized in blocks of a_block values
// along K, each with its own scale, a_scales[m * ceil(K / a_block) + k / a_block] (an outlier
// channel then coarsens its own block only, not the whole row; real encoders need it, see
// docs/quantization.md). With s_q the int32 sum of block q and f_q = a_scale_q * b_scale[n]:
// v = float(s_0) * f_0, then v = fma(float(s_q), f_q, v) for each next block in order; then bias,
// activation and accumulate as usual.
struct GemmI8PackedParams {
  size_t m = 0, n = 0, k = 0;
  const int8_t* a = nullptr;
  size_t lda = 0;
  const float* a_scales = nullptr;
  size_t a_block = 0;  // 0: one scale per row of A
  const int8_t* packed = nullptr;     // pack_i8_16x4 output, 64-byte aligned for speed
  const int32_t* row_sums = nullptr;  // [n]
  // Activation blocks: pack_block_lanes' records for these weights (optional; a kernel that
  // shifts A to unsigned, as the AVX-512 VNNI one does, runs faster with them).
  const BlockLanes* block_lanes = nullptr;
  const float* b_scales = nullptr;    // [n], or [n * ceil(K / a_block)] with b_scales_per_block
  // Activation blocks only: the weights are quantized in the same blocks of K, each row's block
  // with its own scale (b_scales[n * blocks + q] then replaces b_scale[n] in f_q).
  bool b_scales_per_block = false;
  const float* bias = nullptr;        // [n] or null
  Activation activation = Activation::kNone;
  bool accumulate = false;
  float* c = nullptr;
  size_t ldc = 0;
};

struct KernelTable {
  Isa isa = Isa::kScalar;

  // Symmetric per-row quantization: scale = max|x| / 127, q = round-half-away(x / scale) in
  // [-127, 127]; an all-zero row gets scale 0 and q = 0. rows x cols, row strides ldx / ldq.
  void (*quantize_rows_i8)(const float* x, size_t rows, size_t cols, size_t ldx, int8_t* q,
                           size_t ldq, float* scales) = nullptr;
  void (*gemm_i8)(const GemmI8Params& p) = nullptr;
  void (*gemm_f32)(const GemmF32Params& p) = nullptr;
  void (*gemm_f16)(const GemmF16Params& p) = nullptr;
  // y = (x - mean) / sqrt(var + eps) * gamma + beta, per row of n (gamma/beta may be null: 1/0).
  // Both norms may run in place (y == x): a row's statistics are read before it is written.
  void (*layer_norm)(const float* x, size_t rows, size_t n, const float* gamma, const float* beta,
                     float eps, float* y) = nullptr;
  // y = x / sqrt(mean(x^2) + eps) * gamma, per row of n.
  void (*rms_norm)(const float* x, size_t rows, size_t n, const float* gamma, float eps,
                   float* y) = nullptr;
  // In place, one row of n: softmax, log-softmax (numerically stable: max subtracted first).
  // log_softmax is exactly x[i] - log_sum_exp(x, n) (one float subtraction per entry), and leaves
  // a row it has nothing to subtract from (n == 0, every entry -inf) as it is.
  void (*softmax)(float* x, size_t n) = nullptr;
  void (*log_softmax)(float* x, size_t n) = nullptr;
  // max + log(sum exp(x - max)) over one row of n (max = the largest x); -inf when n == 0 or every
  // x is -inf. What log_softmax subtracts: a beam search takes it alone and applies it to the
  // entries it reads instead of rewriting the row (decoding/beam_search.cpp).
  float (*log_sum_exp)(const float* x, size_t n) = nullptr;
  // In place elementwise activation over n values.
  void (*activate)(float* x, size_t n, Activation act) = nullptr;
  // y[i] += x[i] over n.
  void (*add)(float* y, const float* x, size_t n) = nullptr;
  // sum_i a[i] * b[i].
  float (*dot_f32)(const float* a, const float* b, size_t n) = nullptr;
  // y[i] += alpha * x[i].
  void (*axpy_f32)(float alpha, const float* x, float* y, size_t n) = nullptr;
  // For each of `rows` rows r: y[r * ldy + i] += alphas[r * lda + j] * x[j * ldx + i] for
  // j = 0 .. count-1 in turn (`count` axpys per row with y read and written once, x shared by the
  // rows; a linear layer's outlier channels, layers/linear.cpp).
  void (*axpy_rows_f32)(size_t rows, const float* alphas, size_t lda, size_t count, const float* x, size_t ldx,
                        float* y, size_t ldy, size_t n) = nullptr;
  // f16 bit patterns -> f32, and back (round to nearest even).
  void (*f16_to_f32)(const uint16_t* x, float* y, size_t n) = nullptr;
  void (*f32_to_f16)(const float* x, uint16_t* y, size_t n) = nullptr;

  // RNN cells (PyTorch gate layouts). gx, gh: the input and recurrent pre-activations (GEMM
  // outputs with their biases), n = hidden size.
  // tanh in place over n values.
  void (*tanh_f32)(float* x, size_t n) = nullptr;
  // LSTM, gates [i | f | g | o] of n each: a = gx + gh; c = sig(f) c + sig(i) tanh(g);
  // h = sig(o) tanh(c). Updates c and h in place.
  void (*lstm_cell)(const float* gx, const float* gh, float* c, float* h, size_t n) = nullptr;
  // GRU, gates [r | z | n]: r = sig(gx_r + gh_r), z = sig(gx_z + gh_z),
  // cand = tanh(gx_n + r gh_n), h = (1 - z) cand + z h. Updates h in place.
  void (*gru_cell)(const float* gx, const float* gh, float* h, size_t n) = nullptr;

  // Fused scaled-dot-product attention for a block of query rows (see AttentionParams).
  void (*attention)(const AttentionParams& p) = nullptr;
  // Embedding lookup with dequantization: out[t, :] = float(table[ids[t], :]) * row_scales[ids[t]]
  // then * multiplier (int8 rows), or f16 table[ids[t], :] * multiplier; multiplier 1 skips the
  // multiply. `rows` is the table's row count: an id outside [0, rows) gets an all-zero row.
  // Returns how many ids were outside.
  size_t (*embed_i8)(const int8_t* table, size_t rows, size_t ld, const float* row_scales,
                     const int32_t* ids, size_t count, size_t dim, float multiplier, float* out,
                     size_t ldo) = nullptr;
  size_t (*embed_f16)(const uint16_t* table, size_t rows, size_t ld, const int32_t* ids,
                      size_t count, size_t dim, float multiplier, float* out, size_t ldo) = nullptr;
  // gemm_i8 over weights packed by pack_i8_16x4 (see GemmI8PackedParams).
  void (*gemm_i8_packed)(const GemmI8PackedParams& p) = nullptr;
  // Output rows (a multiple of 16) one tile of gemm_i8_packed spans when M >= 4. A caller that
  // splits N between threads cuts at multiples of it, so no call ends in a partial tile: the
  // AVX-512 VNNI tiles span 3 weight blocks (48) and a call ending one or two blocks past a whole
  // tile computes a full tile for them (the same results, up to twice the work for that call).
  size_t gemm_i8_packed_n_step = 16;
};

// The best table for this CPU (chosen once, thread-safe). HEED_ISA=<name> in the environment caps
// the choice (for example HEED_ISA=scalar) so any variant can be exercised on capable hardware.
const KernelTable& best();
// The table for one ISA, or nullptr when this build or this CPU cannot run it.
const KernelTable* for_isa(Isa isa);
// The scalar reference table: always available.
const KernelTable& reference();

// Physical cores of this machine (what `threads 0` means): SMT siblings share one core's GEMM
// units, so one thread per core is the useful count. x86: cpuinfo's core count; elsewhere (ARM
// cores have no SMT) the online processors. At least 1.
size_t physical_cores();

}  // namespace heed::kernels
