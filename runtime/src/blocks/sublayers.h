// The pieces every Transformer layer is made of, written once for the encoder, the decoder step
// and every model family: the residual sub-layer around a norm (pre-norm: x + F(norm(x));
// post-norm: norm(x + F(x))), the feed-forward sub-layer (plain or gated) and the input embedding
// of a token at a position.
#pragma once

#include <cstddef>
#include <cstdint>

#include "blocks/compute.h"
#include "blocks/stack.h"
#include "blocks/stack_scratch.h"

namespace heed::blocks {

// The input of a residual sub-layer: pre-norm writes norm(x) into `normed` and returns it;
// post-norm returns x itself.
const float* sublayer_input(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x,
                            float* normed, size_t rows);
// After F(...) was added into x: post-norm replaces x by norm(x); pre-norm leaves it.
void sublayer_output(const Compute& cx, const StackConfig& c, const layers::Norm& norm, float* x, size_t rows);
// x = norm(x) in place (embedding and final norms).
void normalize_rows(const Compute& cx, const layers::Norm& norm, float* x, size_t rows);

// The feed-forward sub-layer of layer `l` on `rows` rows of x (s.x() or a part of it): act(in W1)
// (* in Wg), then W2, added to the residual.
void feed_forward(const Compute& cx, const StackConfig& c, const LayerWeights& l, const StackScratch& s, float* x,
                  const layers::QuantScratch& q, size_t rows);

// The stack's input embedding of token `id` at `position` into `row`: the scaled token
// embedding plus the sinusoidal table's row (`sinusoidal`, [positions, d_model]) or the learned
// position.
void embed_token(const Compute& cx, const StackWeights& w, const float* sinusoidal, int32_t id, size_t position,
                 float* row);

}  // namespace heed::blocks
