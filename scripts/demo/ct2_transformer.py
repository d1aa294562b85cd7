"""A PyTorch Transformer encoder-decoder that computes exactly what CTranslate2's TransformerSpec
(and heed's runtime) computes, so weights trained here can be exported as a CTranslate2 model:

- embeddings multiplied by sqrt(d_model), plus CTranslate2's sinusoidal position encoding
  (see sinusoidal_positions below);
- pre-norm layers: x + SelfAttention(LN(x)), [+ CrossAttention(LN(x), memory)], + FFN(LN(x)),
  layer norm epsilon 1e-6, and a final layer norm after each stack;
- self-attention with one fused QKV projection [3d, d] (Q rows, then K, then V), cross-attention
  with a Q projection [d, d] and a fused KV projection [2d, d] (K rows, then V); heads are
  contiguous slices of d_model; scores are (Q / sqrt(head_dim)) K^T;
- ReLU feed-forward network; output projection with bias.
"""

import math

import torch
from torch import nn

LAYER_NORM_EPS = 1e-6


def sinusoidal_positions(max_time, depth):
    """CTranslate2's position encoding (layers/common.cc, generate_sinusoidal_position_encoding):
    timescale_j = exp(-j * ln(10000) / (depth/2 - 1)) for j in [0, depth/2); row t (0-based
    time step) = [sin((t+1) * timescale) | cos((t+1) * timescale)], the sines concatenated
    before the cosines (not interleaved), and positions counted from 1, not 0."""
    half = depth // 2
    increment = math.log(10000.0) / (half - 1)
    timescales = torch.exp(torch.arange(half, dtype=torch.float32) * -increment)
    scaled_time = torch.arange(1, max_time + 1, dtype=torch.float32)[:, None] * timescales[None, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, self_attention):
        super().__init__()
        self.num_heads = num_heads
        self.self_attention = self_attention
        self.layer_norm = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        if self_attention:
            self.linear_qkv = nn.Linear(d_model, 3 * d_model)
        else:
            self.linear_q = nn.Linear(d_model, d_model)
            self.linear_kv = nn.Linear(d_model, 2 * d_model)
        self.linear_out = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.num_heads, d // self.num_heads).transpose(1, 2)

    def forward(self, x, memory=None, key_padding=None, causal=False):
        """x [B, T, d] (residual stream); memory [B, S, d] for cross-attention; key_padding
        [B, S] True where the key is padding."""
        h = self.layer_norm(x)
        if self.self_attention:
            q, k, v = self.linear_qkv(h).chunk(3, dim=-1)
        else:
            q = self.linear_q(h)
            k, v = self.linear_kv(memory).chunk(2, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        q = q / math.sqrt(q.shape[-1])
        scores = q @ k.transpose(-1, -2)
        if key_padding is not None:
            scores = scores.masked_fill(key_padding[:, None, None, :], float("-inf"))
        if causal:
            t = scores.shape[-1]
            future = torch.triu(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        context = torch.softmax(scores, dim=-1) @ v
        b, _, t, _ = context.shape
        context = context.transpose(1, 2).reshape(b, t, -1)
        return x + self.linear_out(context)


class FeedForward(nn.Module):
    def __init__(self, d_model, ffn_dim):
        super().__init__()
        self.layer_norm = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.linear_0 = nn.Linear(d_model, ffn_dim)
        self.linear_1 = nn.Linear(ffn_dim, d_model)

    def forward(self, x):
        return x + self.linear_1(torch.relu(self.linear_0(self.layer_norm(x))))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, ffn_dim):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads, self_attention=True)
        self.ffn = FeedForward(d_model, ffn_dim)

    def forward(self, x, src_padding):
        return self.ffn(self.self_attention(x, key_padding=src_padding))


class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, ffn_dim):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads, self_attention=True)
        self.attention = MultiHeadAttention(d_model, num_heads, self_attention=False)
        self.ffn = FeedForward(d_model, ffn_dim)

    def forward(self, x, memory, src_padding):
        x = self.self_attention(x, causal=True)
        x = self.attention(x, memory=memory, key_padding=src_padding)
        return self.ffn(x)


class Transformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=64, num_heads=4, ffn_dim=256,
                 encoder_layers=2, decoder_layers=2, max_time=64):
        super().__init__()
        self.config = dict(src_vocab=src_vocab, tgt_vocab=tgt_vocab, d_model=d_model,
                           num_heads=num_heads, ffn_dim=ffn_dim, encoder_layers=encoder_layers,
                           decoder_layers=decoder_layers, max_time=max_time)
        self.d_model = d_model
        self.src_embeddings = nn.Embedding(src_vocab, d_model)
        self.tgt_embeddings = nn.Embedding(tgt_vocab, d_model)
        # N(0, d^-1/2) keeps embedding * sqrt(d) at unit scale, comparable to the positions.
        nn.init.normal_(self.src_embeddings.weight, std=d_model ** -0.5)
        nn.init.normal_(self.tgt_embeddings.weight, std=d_model ** -0.5)
        self.register_buffer("positions", sinusoidal_positions(max_time, d_model), persistent=False)
        self.encoder = nn.ModuleList(EncoderLayer(d_model, num_heads, ffn_dim)
                                     for _ in range(encoder_layers))
        self.decoder = nn.ModuleList(DecoderLayer(d_model, num_heads, ffn_dim)
                                     for _ in range(decoder_layers))
        self.encoder_norm = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.decoder_norm = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.projection = nn.Linear(d_model, tgt_vocab)

    def embed(self, table, ids):
        return table(ids) * math.sqrt(self.d_model) + self.positions[: ids.shape[1]]

    def encode(self, src, src_padding):
        x = self.embed(self.src_embeddings, src)
        for layer in self.encoder:
            x = layer(x, src_padding)
        return self.encoder_norm(x)

    def decode(self, tgt_in, memory, src_padding):
        """Logits [B, T, V] for every position of the decoder input (teacher forcing)."""
        x = self.embed(self.tgt_embeddings, tgt_in)
        for layer in self.decoder:
            x = layer(x, memory, src_padding)
        return self.projection(self.decoder_norm(x))

    def forward(self, src, src_padding, tgt_in):
        return self.decode(tgt_in, self.encode(src, src_padding), src_padding)

    @torch.no_grad()
    def greedy(self, src, src_padding, bos_id, eos_id, max_steps):
        """Greedy decoding from `<s>`; returns [B, <= max_steps] ids, `</s>` and after it kept
        (callers cut at the first `</s>`). Recomputes the prefix each step: simple and exact."""
        memory = self.encode(src, src_padding)
        out = torch.full((src.shape[0], 1), bos_id, dtype=torch.long)
        finished = torch.zeros(src.shape[0], dtype=torch.bool)
        for _ in range(max_steps):
            logits = self.decode(out, memory, src_padding)[:, -1]
            next_ids = logits.argmax(dim=-1)
            out = torch.cat([out, next_ids[:, None]], dim=1)
            finished |= next_ids == eos_id
            if finished.all():
                break
        return out[:, 1:]
