"""heed.Translator: CTranslate2's Translator API over heed (docs/python.md has the table of
arguments: supported, or an error unless at their no-op default)."""
import inspect

from . import _batching, _checks, _heed
from ._model_object import ModelObject
from .results import GenerationStepResult, ScoringResult, TranslationResult

_MAX_BATCH = 16  # sentences per session call; translate_batch splits larger batches


class Translator(ModelObject):
    """A translation model: a .heed file, or a CTranslate2 model folder converted when opened.

    One object may be used from several threads: calls on it are serialized (create one
    Translator per thread to translate in parallel)."""

    def __init__(self, model_path, device="cpu", device_index=0, compute_type="default", inter_threads=1,
                 intra_threads=0, max_queued_batches=0, flash_attention=False, tensor_parallel=False, files=None,
                 spin_microseconds=100):
        self._limits = None  # the model's (source, target) length limits, set by _session
        super().__init__("Translator", model_path, device, device_index, compute_type, inter_threads, intra_threads,
                         max_queued_batches, flash_attention, tensor_parallel, files, spin_microseconds)

    num_translators = property(lambda self: 1, doc="Translations run one at a time per object.")

    def _forget(self):
        self._limits = None

    def _first_session(self):
        self._session(1, False)

    def _session(self, beam, attention, sentences=1, source_tokens=1, target_tokens=1):
        """The session for at least this beam, this many sentences per call (up to _MAX_BATCH; more
        are decoded in turns), source and target lengths (up to the model's limits) and attention
        capture: the current one, or one planned for the largest shape asked so far, which replaces
        it (one arena at a time). Shapes grow by powers of two, so a run of growing calls re-plans
        a few times only."""
        if self._model is None:
            raise RuntimeError("The model for this translator was unloaded")  # as CTranslate2 words it
        if self._limits is None:  # the model's own length limits, from a session planned with them
            probe = _heed.Translator(self._model, self._threads, self._spin, 1, 1, 0, 0, False)
            self._limits = (probe.max_source_tokens(), probe.max_target_length())
        want = (_power_of_two(beam), min(_MAX_BATCH, _power_of_two(sentences)),
                min(self._limits[0], _power_of_two(source_tokens)), min(self._limits[1], _power_of_two(target_tokens)))
        if self._current is not None:
            shape, session = self._current
            if all(h >= w for h, w in zip(shape[:4], want)) and (shape[4] or not attention):
                return session
            want = tuple(max(h, w) for h, w in zip(shape[:4], want))
            attention = attention or shape[4]
            self._current = None  # frees the old arena before the new one is planned
        beam, batch, source, target = want
        session = _heed.Translator(self._model, self._threads, self._spin, batch, beam, source, target, attention)
        self._current = (want + (attention,), session)
        return session

    def translate_batch(self, source, target_prefix=None, max_batch_size=0, batch_type="examples",
                        asynchronous=False, beam_size=2, patience=1, num_hypotheses=1, length_penalty=1,
                        coverage_penalty=0, repetition_penalty=1, no_repeat_ngram_size=0, disable_unk=False,
                        suppress_sequences=None, end_token=None, return_end_token=False, prefix_bias_beta=0,
                        max_input_length=1024, max_decoding_length=256, min_decoding_length=1, use_vmap=False,
                        return_scores=False, return_logits_vocab=False, return_attention=False,
                        return_alternatives=False, min_alternative_expansion_prob=0, sampling_topk=1, sampling_topp=1,
                        sampling_temperature=1, replace_unknowns=False, callback=None):
        """Translates a batch of token lists; returns one TranslationResult per source.

        source: token lists (the model's vocabulary entries); target_prefix: None or one token list
        (possibly empty) per source that each translation starts with. The decoding arguments are
        CTranslate2's: beam_size (1: greedy or sampling), num_hypotheses (n-best), length_penalty,
        patience, repetition_penalty, no_repeat_ngram_size, disable_unk, suppress_sequences,
        end_token, min/max_decoding_length, sampling_topk/topp/temperature, return_scores,
        return_attention (the last layer's heads averaged), return_alternatives, use_vmap (a model
        converted with a vocabulary map: each batch decodes over its shortlist), callback
        (beam_size 1: called with a GenerationStepResult per token; returning True stops that
        sentence)."""
        _checks.unsupported(asynchronous=(asynchronous, False), coverage_penalty=(coverage_penalty, 0),
                            return_end_token=(return_end_token, False), prefix_bias_beta=(prefix_bias_beta, 0),
                            return_logits_vocab=(return_logits_vocab, False),
                            min_alternative_expansion_prob=(min_alternative_expansion_prob, 0))
        max_batch_size = _checks.integer("max_batch_size", max_batch_size)
        _checks.batch_type(batch_type)
        replace_unknowns = _checks.boolean("replace_unknowns", replace_unknowns)
        sources = _checks.token_lists("source", source)
        prefixes = _checks.token_lists("target_prefix", target_prefix, allow_none=True)
        if prefixes is not None and len(prefixes) != len(sources):
            raise ValueError("target_prefix has %d entries for %d sources" % (len(prefixes), len(sources)))
        args = self._args(locals())
        max_input_length = _checks.integer("max_input_length", max_input_length)
        if max_input_length > 0:
            sources = [s[:max_input_length] for s in sources]
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        if callback is not None and args.beam_size != 1:
            raise ValueError("callback needs beam_size=1 (greedy search or sampling), as in CTranslate2")
        wanted_attention = args.return_attention
        args.return_attention = wanted_attention or replace_unknowns
        results = [None] * len(sources)
        with self._lock:
            # An empty source has an empty translation, as in CTranslate2: only the others are decoded.
            todo = [i for i, s in enumerate(sources) if s]
            chunks = _batching.batches([sources[i] for i in todo], max_batch_size, batch_type)
            session = self._session(max(args.beam_size, args.num_hypotheses), args.return_attention,
                                    max((len(c) for c in chunks), default=1), _longest(sources, todo) + 2,
                                    args.max_decoding_length + 1 + (_longest(prefixes, todo) if prefixes else 0))
            args.max_decoding_length = min(args.max_decoding_length, session.max_target_length())
            step = self._step_callback(session, callback)
            for i in set(range(len(sources))) - set(todo):
                results[i] = TranslationResult([[]] * args.num_hypotheses, [0.0] * args.num_hypotheses
                                               if return_scores else [], [[]] * args.num_hypotheses
                                               if wanted_attention else [])
            for chunk in chunks:
                indices = [todo[k] for k in chunk]
                chunk_prefixes = None if prefixes is None else [prefixes[i] for i in indices]
                if chunk_prefixes is not None and all(not p for p in chunk_prefixes):
                    chunk_prefixes = None
                if args.return_alternatives and args.beam_size > 1:
                    out = _alternatives_by_beam_search(session, [sources[i] for i in indices], chunk_prefixes, args)
                else:
                    out = session.translate([sources[i] for i in indices], chunk_prefixes, args, step)
                unk = session.target_token(session.unk_id()) if replace_unknowns and session.unk_id() >= 0 else None
                for i, hyps in zip(indices, out):
                    tokens = [h[0] if unk is None else _replace_unknowns(h[0], h[3], sources[i], unk) for h in hyps]
                    results[i] = TranslationResult(tokens, [h[1] for h in hyps] if return_scores else [],
                                                   [h[3] for h in hyps] if wanted_attention else [])
        return results

    @staticmethod
    def _args(given):
        a = _heed.TranslateArgs()
        a.seed = _checks.random_seed.value
        _checks.decode_args(a, given, _DECODE_ARGS)
        a.suppress_sequences = _checks.token_lists("suppress_sequences", given["suppress_sequences"] or [])
        a.end_token = _checks.end_tokens(given["end_token"])
        a.return_attention = _checks.boolean("return_attention", given["return_attention"])
        _checks.boolean("return_scores", given["return_scores"])
        return a

    @staticmethod
    def _step_callback(session, callback):
        if callback is None:
            return None

        def step(batch_id, index, token_id):
            result = GenerationStepResult(index, batch_id, token_id, session.target_token(token_id),
                                          is_last=token_id == session.eos_id())
            return not callback(result)

        return step

    def translate_iterable(self, source, target_prefix=None, max_batch_size=32, batch_type="examples", **kwargs):
        """Translates an iterable of token lists in batches of max_batch_size; yields one
        TranslationResult per source, in order."""
        yield from _batching.iterate(lambda s, p=None: self.translate_batch(s, p, batch_type=batch_type, **kwargs),
                            max_batch_size, source, target_prefix)

    def score_batch(self, source, target, max_batch_size=0, batch_type="examples", max_input_length=1024, offset=0,
                    asynchronous=False):
        """The log-probability of each target token (and of the end token) given its source: one
        ScoringResult per pair."""
        _checks.unsupported(offset=(offset, 0), asynchronous=(asynchronous, False))
        max_batch_size = _checks.integer("max_batch_size", max_batch_size)
        _checks.batch_type(batch_type)
        sources = _checks.token_lists("source", source)
        targets = _checks.token_lists("target", target)
        if len(sources) != len(targets):
            raise ValueError("score_batch got %d sources and %d targets" % (len(sources), len(targets)))
        max_input_length = _checks.integer("max_input_length", max_input_length)
        if max_input_length > 0:
            sources = [s[:max_input_length] for s in sources]
        # An empty source scores 0 for every token, as in CTranslate2; the others are scored.
        todo = [i for i, s in enumerate(sources) if s]
        log_probs = [[0.0] * (len(t) + 1) for t in targets]
        with self._lock:
            chunks = _batching.batches([sources[i] for i in todo], max_batch_size, batch_type)
            session = self._session(1, False, max((len(c) for c in chunks), default=1), _longest(sources, todo) + 2,
                                    _longest(targets, todo) + 2)
            for chunk in chunks:
                indices = [todo[k] for k in chunk]
                scored = session.score([sources[i] for i in indices], [targets[i] for i in indices])
                for i, lp in zip(indices, scored):
                    log_probs[i] = lp
            eos = session.target_token(session.eos_id())
        return [ScoringResult(t + [eos], lp) for t, lp in zip(targets, log_probs)]

    def score_iterable(self, source, target, max_batch_size=64, batch_type="examples", **kwargs):
        """Scores an iterable of (source, target) token lists in batches; yields one ScoringResult
        per pair, in order."""
        yield from _batching.iterate(lambda s, t: self.score_batch(s, t, batch_type=batch_type, **kwargs), max_batch_size,
                            source, target)

    def translate_text(self, text, split_sentences=True, source_language=None, **kwargs):
        """heed's extension for models with their tokenizers inside (Marian and Argos conversions):
        plain text in, plain text out (the best translation of each; a model without a tokenizer
        reads space-separated tokens, one sentence per line), through the runtime's text
        path as `heed translate` and heed_translate_text: each line of a text is split into
        sentences by the source language (the model's, or source_language such as "de"; with
        split_sentences=False each line is one sentence), the sentences translated together and the
        lines put back together. The decoding arguments are translate_batch's (num_hypotheses,
        return_* and callback excepted). A line that cannot be translated raises ValueError."""
        texts = _checks.strings("text", text)
        split = _checks.boolean("split_sentences", split_sentences)
        if source_language is not None and not isinstance(source_language, str):
            raise TypeError("source_language must be a str, not %s" % type(source_language).__name__)
        unknown = sorted(set(kwargs) - set(_TEXT_ARGS))
        if unknown:
            raise TypeError("translate_text got unexpected arguments: %s" % ", ".join(unknown))
        parameters = inspect.signature(Translator.translate_batch).parameters
        given = {name: parameters[name].default for name in _TEXT_ARGS + _ARGS_NOT_FOR_TEXT}
        given.update(kwargs)
        args = self._args(given)
        with self._lock:
            # Text is split into sentences of unknown lengths: planned for the model's limits.
            session = self._session(args.beam_size, False, _MAX_BATCH, 1 << 62, 1 << 62)
            args.max_decoding_length = min(args.max_decoding_length, session.max_target_length())
            return session.translate_text(texts, args, split, source_language or "")


# translate_batch's arguments that are the runtime's decoding options (heed/decode_option_keys.h).
_DECODE_ARGS = ("beam_size", "num_hypotheses", "patience", "length_penalty", "repetition_penalty",
                "no_repeat_ngram_size", "disable_unk", "max_decoding_length", "min_decoding_length",
                "return_alternatives", "use_vmap", "sampling_topk", "sampling_topp", "sampling_temperature")

# translate_batch's decoding arguments translate_text takes, and those _args reads that it keeps at
# their defaults (it returns one text per text).
_TEXT_ARGS = ("beam_size", "patience", "length_penalty", "repetition_penalty", "no_repeat_ngram_size", "disable_unk",
              "suppress_sequences", "end_token", "max_decoding_length", "min_decoding_length", "use_vmap",
              "sampling_topk", "sampling_topp", "sampling_temperature")
_ARGS_NOT_FOR_TEXT = ("num_hypotheses", "return_attention", "return_alternatives", "return_scores")


def _replace_unknowns(tokens, attention, source, unk):
    """CTranslate2's replace_unknowns: each unknown target token becomes the source token it attends
    to most (the attention heed returns: the last layer's heads averaged)."""
    out = list(tokens)
    for t, token in enumerate(out):
        if token == unk and t < len(attention) and attention[t]:
            row = attention[t][:len(source)]
            if row:
                out[t] = source[max(range(len(row)), key=row.__getitem__)]
    return out



def _power_of_two(n):
    """The smallest power of two >= n (>= 1)."""
    return 1 << max(n - 1, 0).bit_length()


def _alternatives_by_beam_search(session, sources, prefixes, args):
    """return_alternatives with beam_size > 1, as CTranslate2 decodes it: the num_hypotheses most
    likely tokens at the first position after the prefix (heed's alternatives at beam 1 give the
    same ones), each continued by a beam search of beam_size that keeps its best hypothesis. A
    hypothesis scores its alternative token's log-prob plus the continuation's own score: the
    continuation's log-prob (end token included) over its length ** length_penalty, which also
    picks the continuation among the beam's finished hypotheses."""
    beam, n_best, penalty = args.beam_size, args.num_hypotheses, args.length_penalty
    try:
        args.beam_size = 1
        firsts = session.translate(sources, prefixes, args, None)
        args.beam_size, args.num_hypotheses, args.return_alternatives = beam, beam, False
        out = []
        for i, source in enumerate(sources):
            start = len(prefixes[i]) if prefixes else 0
            hyps = []
            for tokens, _, log_probs, _ in firsts[i]:
                if len(tokens) <= start:  # no free position within max_decoding_length
                    hyps.append((tokens, 0.0, log_probs, []))
                    continue
                # The beam search over the alternative as a prefix ranks its finished hypotheses
                # over their whole length; the continuation's own length ranks them here.
                candidates = session.translate([source], [tokens[:start + 1]], args, None)[0]
                scored = [(_continuation_score(c[2][start + 1:], penalty), c) for c in candidates]
                best, (c_tokens, _, c_log_probs, c_attention) = max(scored, key=lambda sc: sc[0])
                hyps.append((c_tokens, log_probs[start] + best, log_probs[:start + 1] + c_log_probs[start + 1:],
                             c_attention))
            out.append(hyps)
        return out
    finally:
        args.beam_size, args.num_hypotheses, args.return_alternatives = beam, n_best, True


def _continuation_score(log_probs, penalty):
    return sum(log_probs) / len(log_probs) ** penalty if log_probs else 0.0


def _longest(sequences, indices):
    return max((len(sequences[i]) for i in indices), default=1)
