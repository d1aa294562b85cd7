"""The attention zoo's RNN encoder-decoder, written to be the exact specification heed's
runtime/src/rnn/ implements (docs/torch-seq2seq.md names every parameter and config key).

Encoder: embeddings -> multi-layer (optionally bidirectional) LSTM/GRU over the source.
Decoder, one step, placement "luong" (attention after the cell, from h_t):
    x_t  = [emb(y_t); htilde_{t-1}]  (input feeding) or emb(y_t)
    h_t  = cell stack(x_t)
    a_t  = align(score(h_t, h_s))     c_t = sum_s a_t[s] h_s
    htilde_t = tanh(W_c [c_t; h_t])   log p = log_softmax(W_out htilde_t + b_out)
placement "bahdanau" (attention before the cell, from s_{t-1}):
    a_t  = align(score(s_{t-1}, h_s)) c_t = sum_s a_t[s] h_s
    s_t  = cell stack([emb(y_t); c_t])
    htilde_t = tanh(W_c [c_t; s_t])   log p = log_softmax(W_out htilde_t + b_out)
score "none" (no attention, no combine layer): log p = log_softmax(W_out h_t + b_out).
score "location" (Luong's location-based score): a_t = softmax(W_a q + b) over max_source_positions
fixed positions; positions at or beyond the source have zero memory (zero-padded encoder outputs).
decoder_input_activation "relu": emb(y_t) is replaced by ReLU(emb(y_t)) (PyTorch's seq2seq tutorial).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
PAD, BOS, EOS, UNK = 0, 1, 2, 3
SCORES = ["dot", "scaled_dot", "general", "concat", "additive", "cosine", "mlp", "none", "location"]
ALIGNMENTS = ["global", "local_m", "local_p"]


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        h, a = cfg["hidden_dim"], cfg.get("attention_dim", 0)
        self.score, self.alignment = cfg["score"], cfg["alignment"]
        self.window = cfg.get("window", 0)
        if self.score == "general":
            self.key = nn.Linear(h, h, bias=False)             # W_a h_s, precomputed per source
        elif self.score == "concat":
            self.concat = nn.Linear(2 * h, a, bias=False)      # W_a [q; h_s]
            self.v = nn.Linear(a, 1, bias=False)
        elif self.score in ("additive", "mlp"):
            self.key = nn.Linear(h, a, bias=True)              # W_1 h_s + b
            self.query = nn.Linear(h, a, bias=False)           # W_2 q
            self.v = nn.Linear(a, 1, bias=False)
            if self.score == "mlp":
                self.hidden = nn.Linear(a, a, bias=True)       # second layer of the MLP
        elif self.score == "cosine":
            self.cosine_scale = nn.Parameter(torch.tensor([5.0]))  # key strength (learned)
        elif self.score == "location":
            self.location = nn.Linear(h, cfg["max_source_positions"])  # W_a q + b over fixed positions
        if self.alignment == "local_p":
            self.position = nn.Linear(h, a, bias=False)        # W_p
            self.position_v = nn.Linear(a, 1, bias=False)      # v_p

    def keys(self, memory):
        """Per-source precomputation: [B, S, H] -> what scores() takes."""
        if self.score == "general":
            return self.key(memory)
        if self.score in ("additive", "mlp"):
            return self.key(memory)
        if self.score == "concat":
            h = memory.shape[-1]
            return F.linear(memory, self.concat.weight[:, h:])
        return memory

    def scores(self, q, memory, keys):
        # q [B, H], memory/keys [B, S, .] -> [B, S]
        if self.score == "dot" or self.score == "general":
            return torch.bmm(keys, q.unsqueeze(2)).squeeze(2)
        if self.score == "scaled_dot":
            return torch.bmm(keys, q.unsqueeze(2)).squeeze(2) / math.sqrt(q.shape[-1])
        if self.score == "cosine":
            qn = q / q.norm(dim=-1, keepdim=True).clamp_min(1e-6)
            kn = keys / keys.norm(dim=-1, keepdim=True).clamp_min(1e-6)
            return torch.bmm(kn, qn.unsqueeze(2)).squeeze(2) * self.cosine_scale
        if self.score == "concat":
            h = q.shape[-1]
            e = torch.tanh(keys + F.linear(q, self.concat.weight[:, :h]).unsqueeze(1))
            return self.v(e).squeeze(2)
        e = torch.tanh(keys + self.query(q).unsqueeze(1))
        if self.score == "mlp":
            e = torch.tanh(self.hidden(e))
        return self.v(e).squeeze(2)

    def forward(self, q, memory, keys, lengths, step, hard=False):
        """Returns the weights a_t [B, S] and the context c_t [B, H]."""
        b, s = memory.shape[0], memory.shape[1]
        if self.score == "location":
            a = torch.softmax(self.location(q), dim=1)  # [B, P], whatever the source's length
            if hard:
                a = F.one_hot(a.argmax(dim=1), a.shape[1]).float()
            a = a[:, :s]  # memory rows at or beyond each length are zeros (pad_packed_sequence)
            return a, torch.bmm(a.unsqueeze(1), memory).squeeze(1)
        positions = torch.arange(s, dtype=torch.float32).unsqueeze(0).expand(b, s)
        valid = positions < lengths.unsqueeze(1).float()
        e = self.scores(q, memory, keys)
        gauss = None
        if self.alignment == "local_m":
            p = torch.minimum(torch.full((b,), float(step)), lengths.float() - 1)
            valid = valid & ((positions - p.unsqueeze(1)).abs() <= self.window)
        elif self.alignment == "local_p":
            z = self.position_v(torch.tanh(self.position(q))).squeeze(1)
            p = lengths.float() * torch.sigmoid(z)
            d = positions - p.unsqueeze(1)
            valid = valid & (d.abs() <= self.window)
            sigma = self.window / 2.0
            gauss = torch.exp(-(d * d) / (2 * sigma * sigma))
        e = e.masked_fill(~valid, float("-inf"))
        a = torch.softmax(e, dim=1)
        if gauss is not None:
            a = a * gauss
        if hard:
            a = F.one_hot(a.argmax(dim=1), s).float()
        c = torch.bmm(a.unsqueeze(1), memory).squeeze(1)
        return a, c


class Seq2Seq(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        e, h = cfg["embedding_dim"], cfg["hidden_dim"]
        self.lstm = cfg["cell"] == "lstm"
        self.bi = cfg.get("bidirectional_encoder", False)
        self.layers = cfg["layers"]
        self.luong = cfg["placement"] == "luong"
        self.feed = cfg.get("input_feeding", False)
        self.attend = cfg["score"] != "none"
        self.relu = cfg.get("decoder_input_activation", "none") == "relu"
        rnn = nn.LSTM if self.lstm else nn.GRU
        cell = nn.LSTMCell if self.lstm else nn.GRUCell
        self.source_embeddings = nn.Embedding(cfg["source_vocab_size"], e)
        self.target_embeddings = nn.Embedding(cfg["target_vocab_size"], e)
        self.encoder = rnn(e, h // 2 if self.bi else h, num_layers=self.layers, bidirectional=self.bi,
                           batch_first=True)
        first_in = e + (h if (self.feed or not self.luong) else 0)
        self.decoder = nn.ModuleList([cell(first_in if i == 0 else h, h) for i in range(self.layers)])
        if self.attend:
            self.attention = Attention(cfg)
            self.combine = nn.Linear(2 * h, h, bias=False)  # W_c [c_t; h_t]
        self.output = nn.Linear(h, cfg["target_vocab_size"])

    def encode(self, src, lengths):
        x = self.source_embeddings(src)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, state = self.encoder(packed)
        memory, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        def merge(t):  # [L * dirs, B, Hd] -> [L, B, H]
            if not self.bi:
                return t
            t = t.view(self.layers, 2, t.shape[1], t.shape[2])
            return torch.cat([t[:, 0], t[:, 1]], dim=2)
        if self.lstm:
            hs, cs = merge(state[0]), merge(state[1])
            dec = [(hs[i], cs[i]) for i in range(self.layers)]
        else:
            hs = merge(state)
            dec = [hs[i] for i in range(self.layers)]
        return memory, dec

    def start(self, src, lengths):
        memory, state = self.encode(src, lengths)
        b = src.shape[0]
        keys = self.attention.keys(memory) if self.attend else memory
        return {"memory": memory, "keys": keys, "lengths": lengths, "state": state,
                "feed": torch.zeros(b, self.cfg["hidden_dim"])}

    def top(self, state):
        return state[-1][0] if self.lstm else state[-1]

    def step(self, st, y, t, hard=False):
        """One decoder step from tokens y [B]; returns (log-probs [B, V], attention [B, S], new st)."""
        x = self.target_embeddings(y)
        if self.relu:
            x = torch.relu(x)
        att = None
        if self.luong:
            if self.feed:
                x = torch.cat([x, st["feed"]], dim=1)
        else:
            att, ctx = self.attention(self.top(st["state"]), st["memory"], st["keys"], st["lengths"], t, hard)
            x = torch.cat([x, ctx], dim=1)
        new_state = []
        for i, cell in enumerate(self.decoder):
            s = cell(x, st["state"][i])
            new_state.append(s)
            x = s[0] if self.lstm else s
        if not self.attend:
            return torch.log_softmax(self.output(x), dim=1), None, dict(st, state=new_state)
        if self.luong:
            att, ctx = self.attention(x, st["memory"], st["keys"], st["lengths"], t, hard)
        htilde = torch.tanh(self.combine(torch.cat([ctx, x], dim=1)))
        logp = torch.log_softmax(self.output(htilde), dim=1)
        return logp, att, dict(st, state=new_state, feed=htilde)

    def reorder(self, st, parents):
        def pick(s):
            return tuple(x[parents] for x in s) if isinstance(s, tuple) else s[parents]
        return dict(st, state=[pick(s) for s in st["state"]], feed=st["feed"][parents],
                    memory=st["memory"][parents], keys=st["keys"][parents], lengths=st["lengths"][parents])
