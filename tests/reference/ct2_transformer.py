"""Plain NumPy forward pass of a CTranslate2 "TransformerBase"-style encoder-decoder.

Part of heed's independent reference (see docs/reference.md). It follows the
computation CTranslate2 performs for a pre-norm Transformer with sinusoidal
positions, written from that computation's description and not from heed's C++
sources, so that heed's runtime can be checked against it.

Semantics (defaults = what reproduces the aren models' known outputs):

* Token embeddings (int8 rows dequantized as q / scale) are multiplied by
  sqrt(d_model), then a sinusoidal position encoding is added:
      inc      = ln(10000) / (d/2 - 1)
      pe[p, i] = sin(p * exp(-inc * i))          for i in [0, d/2)
      pe[p, d/2 + i] = cos(p * exp(-inc * i))    (sin half first, then cos half)
  where p = t + 1 for the token at 0-based index t (positions start at 1).
* Every layer is pre-norm:  x = x + SubLayer(LayerNorm(x)), LayerNorm epsilon 1e-5
  (biased variance, gamma/beta), followed by one final LayerNorm per stack.
* Self-attention: linear_0 is the fused projection whose output rows are
  [Q | K | V] (each d_model wide), linear_1 the output projection. Cross-attention:
  linear_0 = Q (from the normalized decoder state), linear_1 = fused [K | V] applied
  to the encoder output (not normalized again), linear_2 = output projection.
  Heads split each d_model block into num_heads contiguous slices; scores are
  (Q K^T) / sqrt(d_head); the decoder self-attention is causal.
* FFN: linear_1(ReLU(linear_0(x))).
* Output: projection(final_norm(x)) then log-softmax.
* Decoding starts from <s> (id 1) and stops at </s> (id 2); like CTranslate2's
  defaults, </s> is forbidden at the first step (min_decoding_length = 1), the
  maximum length is 256, and the returned score is the sum of token log-probs
  (including </s>) divided by the number of decoding steps, </s> included
  (length_penalty = 1), as CTranslate2 4.x returns it.

Two numeric modes:

* ``int8_activations=False``: float64 arithmetic on the (dequantized) weights.
* ``int8_activations=True``: mimics an int8 inference path. Before every linear
  layer whose weight is stored as int8, each activation row is quantized
  symmetrically: s = max|x| / 127, q = clamp(round_half_away_from_zero(x / s),
  -127, 127); the product uses the integer weights exactly and is rescaled by
  s / weight_scale[row]. Attention products (QK^T, PV) stay in floating point.
"""

import math

import numpy as np

BOS_ID = 1
EOS_ID = 2


# ----------------------------------------------------------------------------------
# Position encodings


def sinusoidal_position_encoding(num_positions, depth, start=1, layout="concat",
                                 denominator="half_minus_one"):
    """Returns a [num_positions, depth] float64 table of sinusoidal encodings.

    ``start``: position index of the first token (CTranslate2: 1).
    ``layout``: "concat" = [sin(all freqs) | cos(all freqs)] (CTranslate2);
                "interleave" = sin, cos, sin, cos ... (the original paper's layout).
    ``denominator``: "half_minus_one" = ln(10000)/(d/2 - 1) (CTranslate2);
                     "half" = ln(10000)/(d/2).
    """
    half = depth // 2
    if denominator == "half_minus_one":
        increment = math.log(10000.0) / (half - 1)
    elif denominator == "half":
        increment = math.log(10000.0) / half
    else:
        raise ValueError("unknown denominator variant %r" % denominator)
    inv_timescales = np.exp(-increment * np.arange(half, dtype=np.float64))
    positions = np.arange(num_positions, dtype=np.float64) + start
    scaled = positions[:, None] * inv_timescales[None, :]
    if layout == "concat":
        return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
    if layout == "interleave":
        table = np.empty((num_positions, 2 * half))
        table[:, 0::2] = np.sin(scaled)
        table[:, 1::2] = np.cos(scaled)
        return table
    raise ValueError("unknown layout variant %r" % layout)


# ----------------------------------------------------------------------------------
# Small numeric helpers


def round_half_away_from_zero(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize_rows(x):
    """Symmetric per-row int8 quantization; returns (q as int64, scale per row)."""
    amax = np.max(np.abs(x), axis=-1, keepdims=True)
    scale = amax / 127.0
    safe = np.where(scale > 0, scale, 1.0)
    q = np.clip(round_half_away_from_zero(x / safe), -127, 127)
    q = np.where(scale > 0, q, 0.0)
    return q.astype(np.int64), scale


def layer_norm(x, gamma, beta, epsilon):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * gamma + beta


def softmax(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


def log_softmax(x):
    finite_max = np.max(x, axis=-1, keepdims=True)
    shifted = x - finite_max
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


# ----------------------------------------------------------------------------------
# The model


class Transformer:
    def __init__(self, model, num_heads=8, epsilon=1e-5, int8_activations=False,
                 pe_start=1, pe_layout="concat", pe_denominator="half_minus_one",
                 scale_embeddings=True, compute_dtype=np.float64):
        self.model = model
        # float64 by default so the reference is insensitive to summation order;
        # float32 is available to estimate the error of a float32 implementation.
        self.dtype = np.dtype(compute_dtype)
        self.num_heads = num_heads
        self.epsilon = epsilon
        self.int8_activations = int8_activations
        self.pe_options = dict(start=pe_start, layout=pe_layout, denominator=pe_denominator)
        self.scale_embeddings = scale_embeddings
        self._cache = {}
        self.num_encoder_layers = self._count_layers("encoder")
        self.num_decoder_layers = self._count_layers("decoder")
        self.d_model = self.model.raw("encoder/embeddings/weight").shape[1]

    # -- weights --------------------------------------------------------------

    def _count_layers(self, stack):
        count = 0
        while self.model.has("%s/layer_%d/ffn/linear_0/weight" % (stack, count)):
            count += 1
        return count

    def _float(self, name):
        if name not in self._cache:
            self._cache[name] = self.model.get_float(name).astype(self.dtype)
        return self._cache[name]

    def linear(self, x, scope):
        weight_name = scope + "/weight"
        bias = self._float(scope + "/bias") if self.model.has(scope + "/bias") else 0.0
        if self.int8_activations and self.model.stored_dtypes[weight_name] == "int8":
            q_weight = self.model.raw(weight_name).astype(np.int64)
            weight_scale = self.model.get_float(weight_name + "_scale").astype(self.dtype)
            q_x, x_scale = quantize_rows(x)
            accumulator = (q_x @ q_weight.T).astype(self.dtype)  # exact integer products
            return accumulator * x_scale / weight_scale[None, :] + bias
        return x @ self._float(weight_name).T + bias

    def norm(self, x, scope):
        return layer_norm(x, self._float(scope + "/gamma"), self._float(scope + "/beta"),
                          self.epsilon)

    def embed(self, stack, ids):
        table = self._float(stack + "/embeddings/weight")
        x = table[np.asarray(ids, dtype=np.int64)]
        if self.scale_embeddings:
            x = x * self.dtype.type(math.sqrt(self.d_model))
        encoding = sinusoidal_position_encoding(len(ids), self.d_model, **self.pe_options)
        return x + encoding.astype(self.dtype)

    # -- attention ------------------------------------------------------------

    def _split_heads(self, x):
        time, depth = x.shape
        return x.reshape(time, self.num_heads, depth // self.num_heads).transpose(1, 0, 2)

    def _combine_heads(self, x):
        heads, time, head_dim = x.shape
        return x.transpose(1, 0, 2).reshape(time, heads * head_dim)

    def _attend(self, q, k, v, causal, record=None):
        qh, kh, vh = self._split_heads(q), self._split_heads(k), self._split_heads(v)
        head_dim = qh.shape[-1]
        scores = (qh @ kh.transpose(0, 2, 1)) * self.dtype.type(1.0 / math.sqrt(head_dim))
        if causal:
            tq, tk = scores.shape[1], scores.shape[2]
            future = np.triu(np.ones((tq, tk), dtype=bool), k=1 + (tk - tq))
            scores = np.where(future[None], -np.inf, scores)
        probs = softmax(scores)
        if record is not None:
            record.append(probs)  # [heads, queries, keys]
        return self._combine_heads(probs @ vh)

    def self_attention(self, x, scope, causal):
        normed = self.norm(x, scope + "/layer_norm")
        fused = self.linear(normed, scope + "/linear_0")
        d = self.d_model
        q, k, v = fused[:, :d], fused[:, d:2 * d], fused[:, 2 * d:3 * d]
        return x + self.linear(self._attend(q, k, v, causal), scope + "/linear_1")

    def cross_attention(self, x, memory, scope, record=None):
        normed = self.norm(x, scope + "/layer_norm")
        q = self.linear(normed, scope + "/linear_0")
        fused = self.linear(memory, scope + "/linear_1")
        d = self.d_model
        k, v = fused[:, :d], fused[:, d:2 * d]
        return x + self.linear(self._attend(q, k, v, causal=False, record=record), scope + "/linear_2")

    def feed_forward(self, x, scope):
        normed = self.norm(x, scope + "/layer_norm")
        inner = np.maximum(self.linear(normed, scope + "/linear_0"), self.dtype.type(0))
        return x + self.linear(inner, scope + "/linear_1")

    # -- stacks ---------------------------------------------------------------

    def encode(self, source_ids):
        """Returns the encoder output [source_length, d_model]."""
        if len(source_ids) == 0:
            raise ValueError("empty source")
        x = self.embed("encoder", source_ids)
        for layer in range(self.num_encoder_layers):
            scope = "encoder/layer_%d" % layer
            x = self.self_attention(x, scope + "/self_attention", causal=False)
            x = self.feed_forward(x, scope + "/ffn")
        return self.norm(x, "encoder/layer_norm")

    def decoder_log_probs(self, decoder_input_ids, memory):
        """Log-probabilities [len(decoder_input_ids), vocab] for every input position."""
        x = self.embed("decoder", decoder_input_ids)
        for layer in range(self.num_decoder_layers):
            scope = "decoder/layer_%d" % layer
            x = self.self_attention(x, scope + "/self_attention", causal=True)
            x = self.cross_attention(x, memory, scope + "/attention")
            x = self.feed_forward(x, scope + "/ffn")
        x = self.norm(x, "decoder/layer_norm")
        return log_softmax(self.linear(x, "decoder/projection"))

    def cross_attention_weights(self, decoder_input_ids, memory):
        """Cross-attention probabilities [decoder layers, heads, len(decoder_input_ids), source length]."""
        record = []
        x = self.embed("decoder", decoder_input_ids)
        for layer in range(self.num_decoder_layers):
            scope = "decoder/layer_%d" % layer
            x = self.self_attention(x, scope + "/self_attention", causal=True)
            x = self.cross_attention(x, memory, scope + "/attention", record)
            x = self.feed_forward(x, scope + "/ffn")
        return np.stack(record)

    def decoder_logits(self, decoder_input_ids, memory):
        """Raw logits of the last input position (before log-softmax)."""
        x = self.embed("decoder", decoder_input_ids)
        for layer in range(self.num_decoder_layers):
            scope = "decoder/layer_%d" % layer
            x = self.self_attention(x, scope + "/self_attention", causal=True)
            x = self.cross_attention(x, memory, scope + "/attention")
            x = self.feed_forward(x, scope + "/ffn")
        x = self.norm(x, "decoder/layer_norm")
        return self.linear(x, "decoder/projection")[-1]

    # -- decoding -------------------------------------------------------------

    def _step_log_probs(self, prefix, memory, step, min_length):
        logits = self.decoder_logits(prefix, memory).copy()
        if step < min_length:
            logits[EOS_ID] = -np.inf
        return log_softmax(logits)

    def greedy(self, source_ids, max_length=256, min_length=1, length_penalty=1.0,
               margins=None):
        """Greedy decoding.

        Returns (output ids without </s>, per-step log-probs including the </s> step,
        score = sum(log-probs) / len(output)**length_penalty). When ``margins`` is a
        list, the gap between the best and second-best log-prob of every step is
        appended to it (small gaps mark decisions that rounding could flip).
        """
        memory = self.encode(source_ids)
        prefix = [BOS_ID]
        output, log_probs = [], []
        for step in range(max_length):
            step_log_probs = self._step_log_probs(prefix, memory, step, min_length)
            best = int(np.argmax(step_log_probs))
            if margins is not None:
                top_two = np.sort(step_log_probs)[-2:]
                margins.append(float(top_two[1] - top_two[0]))
            log_probs.append(float(step_log_probs[best]))
            if best == EOS_ID:
                break
            output.append(best)
            prefix.append(best)
        total = sum(log_probs)
        return output, log_probs, _normalize(total, len(log_probs), length_penalty)

    def beam_search(self, source_ids, beam_size=4, max_length=256, min_length=1,
                    length_penalty=1.0, num_hypotheses=1):
        """Beam search as CTranslate2 runs it with patience 1.

        * step 0 expands only the <s> hypothesis; later steps rank all
          beam_size * vocab continuations by cumulative log-prob and keep the top
          2 * beam_size candidates;
        * a candidate among the first beam_size that ends with </s> becomes a
          finished hypothesis (score = cumulative log-prob including </s>) and its
          slot is refilled by the next non-</s> candidate from the second half;
        * the search stops once at least beam_size hypotheses are finished (or at
          max_length); scores are then divided by the number of decoding steps
          (</s> included) ** length_penalty and sorted.

        Returns a list of (ids, normalized score, raw cumulative log-prob) best first.
        """
        memory = self.encode(source_ids)
        num_candidates = 2 * beam_size
        beams = [([BOS_ID], 0.0)]  # (decoder input so far, cumulative log-prob)
        finished = []
        for step in range(max_length):
            candidates = []  # (score, beam index, token)
            for beam_index, (prefix, score) in enumerate(beams):
                step_log_probs = self._step_log_probs(prefix, memory, step, min_length)
                for token, lp in enumerate(step_log_probs):
                    candidates.append((score + float(lp), beam_index, token))
            # Highest score first; ties broken by flattened index like a top-k over
            # [beam, vocab].
            candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
            candidates = candidates[:num_candidates]
            is_last_step = step + 1 == max_length
            next_beams = []
            secondary = beam_size
            for k in range(beam_size):
                chosen = k
                score, beam_index, token = candidates[k]
                if token == EOS_ID or is_last_step:
                    tokens = beams[beam_index][0][1:]
                    if token != EOS_ID:
                        tokens = tokens + [token]
                    finished.append((tokens, score, step + 1))
                    for j in range(secondary, num_candidates):
                        if candidates[j][2] != EOS_ID:
                            chosen = j
                            secondary = j + 1
                            break
                score, beam_index, token = candidates[chosen]
                next_beams.append((beams[beam_index][0] + [token], score))
            if is_last_step or len(finished) >= beam_size:
                break
            beams = next_beams
        results = [(tokens, _normalize(raw, steps, length_penalty), raw)
                   for tokens, raw, steps in finished]
        results.sort(key=lambda r: -r[1])
        return results[:num_hypotheses]

    def score(self, source_ids, target_ids):
        """Per-token log-probs of target_ids followed by </s>, given the source."""
        memory = self.encode(source_ids)
        decoder_input = [BOS_ID] + list(target_ids)
        expected = list(target_ids) + [EOS_ID]
        all_log_probs = self.decoder_log_probs(decoder_input, memory)
        return [float(all_log_probs[t, token]) for t, token in enumerate(expected)]

    def first_step_log_probs(self, source_ids):
        """Full log-softmax vector after <s> (no </s> masking)."""
        memory = self.encode(source_ids)
        return self.decoder_log_probs([BOS_ID], memory)[0]


def _normalize(total, length, length_penalty):
    if length_penalty == 0:
        return total
    if length == 0:
        return -math.inf
    return total / (length ** length_penalty)
