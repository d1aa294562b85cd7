// Rotary position embeddings (RoPE): the query and key of every head are rotated by an angle that
// grows with the position, so q . k depends on the distance between their positions only.
//
// heed rotates interleaved pairs: within a head of width hd, pair j is (x[2j], x[2j+1]), rotated
// by angle position * theta^(-2j / hd) (the layout of llama2.c checkpoints and of Meta's original
// Llama code). Converters whose source uses the "rotate half" layout (pair j = (x[j], x[j + hd/2]))
// permute the query and key projection rows into this one.
#pragma once

#include <cstddef>

namespace heed::layers {

// Fills table[positions, head_dim]: row p holds cos(p * w_j) for j < head_dim / 2, then
// sin(p * w_j), with w_j = theta^(-2j / head_dim). Computed in double, stored as float.
void rope_table(size_t positions, size_t head_dim, float theta, float* table);

// Rotates `heads` consecutive head vectors of width head_dim at x (in place) with row `row` of a
// rope_table (head_dim / 2 cosines, then head_dim / 2 sines).
void apply_rope(float* x, size_t heads, size_t head_dim, const float* row);

}  // namespace heed::layers
