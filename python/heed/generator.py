"""heed.Generator: CTranslate2's Generator API over heed's decoder-only models (greedy search and
sampling; docs/python.md lists what is supported)."""
import queue
import threading

from . import _batching, _checks, _heed
from ._model_object import ModelObject
from .results import GenerationResult, GenerationStepResult, ScoringResult

_SCORE_BATCH = 4  # sequences per session call in score_batch (each session plans its own memory)


class Generator(ModelObject):
    """A language model: a .heed file, or a CTranslate2 model folder converted when opened.

    Calls on one object are serialized (create one Generator per thread to generate in parallel)."""

    def __init__(self, model_path, device="cpu", device_index=0, compute_type="default", inter_threads=1,
                 intra_threads=0, max_queued_batches=0, flash_attention=False, tensor_parallel=False, files=None,
                 spin_microseconds=100):
        super().__init__("Generator", model_path, device, device_index, compute_type, inter_threads, intra_threads,
                         max_queued_batches, flash_attention, tensor_parallel, files, spin_microseconds)

    num_generators = property(lambda self: 1, doc="Generations run one at a time per object.")

    def _first_session(self):
        self._session(1)

    def _session(self, batch):
        """The session for at least `batch` sequences: the current one, or a larger one replacing it."""
        if self._model is None:
            raise RuntimeError("The model for this generator was unloaded")  # as CTranslate2 words it
        if self._current is not None:
            if self._current[0] >= batch:
                return self._current[1]
            self._current = None  # frees the old arena before the new one is planned
        session = _heed.Generator(self._model, self._threads, self._spin, batch, 0)
        self._current = (batch, session)
        return session

    @staticmethod
    def _id(session, token):
        """A token's id; a token outside the vocabulary is the unknown token, as in CTranslate2."""
        i = session.token_id(token)
        if i < 0:
            i = session.unk_id()
        if i < 0:
            raise ValueError("token %r is not in the model's vocabulary (which has no unknown token)" % (token,))
        return i

    def _prompt(self, session, tokens):
        """Prompt tokens as ids, without the start token heed feeds itself (CTranslate2's start_tokens
        begin with it)."""
        ids = [self._id(session, t) for t in tokens]
        if ids and ids[0] == session.bos_id():
            ids = ids[1:]
        return ids

    @staticmethod
    def _args(given):
        a = _heed.GenerateArgs()
        a.seed = _checks.random_seed.value
        a.max_length = _checks.integer("max_length", given["max_length"], 1)
        _checks.decode_args(a, given, ("sampling_topk", "sampling_topp", "sampling_temperature", "repetition_penalty",
                                       "no_repeat_ngram_size", "disable_unk"))
        a.suppress_sequences = _checks.token_lists("suppress_sequences", given["suppress_sequences"] or [])
        a.end_token = _checks.end_tokens(given["end_token"])
        return a

    def generate_batch(self, start_tokens, max_batch_size=0, batch_type="examples", asynchronous=False, beam_size=1,
                       patience=1, num_hypotheses=1, length_penalty=1, repetition_penalty=1, no_repeat_ngram_size=0,
                       disable_unk=False, suppress_sequences=None, end_token=None, return_end_token=False,
                       max_length=512, min_length=0, static_prompt=None, cache_static_prompt=True,
                       include_prompt_in_result=True, return_scores=False, return_logits_vocab=False,
                       return_alternatives=False, min_alternative_expansion_prob=0, sampling_topk=1, sampling_topp=1,
                       sampling_temperature=1, callback=None):
        """Continues each prompt (a token list starting with the model's start token where it has
        one); returns one GenerationResult per prompt. max_length counts the generated tokens, and the
        prompt after its start token with include_prompt_in_result, as in CTranslate2."""
        _checks.unsupported(asynchronous=(asynchronous, False), beam_size=(beam_size, 1), patience=(patience, 1), num_hypotheses=(num_hypotheses, 1),
                            length_penalty=(length_penalty, 1), return_end_token=(return_end_token, False),
                            min_length=(min_length, 0), static_prompt=(static_prompt, None),
                            return_logits_vocab=(return_logits_vocab, False),
                            return_alternatives=(return_alternatives, False),
                            min_alternative_expansion_prob=(min_alternative_expansion_prob, 0), callback=(callback, None))
        _checks.integer("max_batch_size", max_batch_size)
        _checks.batch_type(batch_type)
        _checks.boolean("include_prompt_in_result", include_prompt_in_result)
        _checks.boolean("return_scores", return_scores)
        prompts = _checks.token_lists("start_tokens", start_tokens)
        args = self._args(locals())
        results = []
        with self._lock:
            session = self._session(1)
            for tokens in prompts:  # one at a time: the results of one prompt alone, as documented
                results.append(self._generate_one(session, tokens, args, include_prompt_in_result, return_scores))
        return results

    def _generate_one(self, session, tokens, args, include_prompt, return_scores):
        """One prompt's GenerationResult as CTranslate2 gives it. With the prompt in the result,
        max_length counts the prompt after its start token too (a longer prompt is cut there and
        nothing is generated), and the start token is part of the result unless it is the model's
        start token (CTranslate2 looks its bos_token up in the vocabulary: unknown, it is <unk>)."""
        # The prompt after its start token, as the vocabulary reads it (an unknown word is the
        # unknown token), as in CTranslate2.
        rest = [self._id(session, t) for t in tokens[1:]] if include_prompt else []
        shown = rest
        if include_prompt and tokens:
            bos = session.bos_id() if session.bos_id() >= 0 else session.unk_id()
            start = self._id(session, tokens[0])
            shown = rest if start == bos else [start] + rest
        budget = args.max_length - len(rest)
        if budget <= 0:
            shown = shown[:len(shown) - len(rest) + args.max_length]
            ends = [self._id(session, t) for t in args.end_token] if args.end_token else [session.eos_id()]
            if shown and shown[-1] in ends:  # the result never ends with an end token
                shown = shown[:-1]
            return GenerationResult([[session.token(i) for i in shown]], [shown], [0.0] if return_scores else [])
        args.max_length, max_length = budget, args.max_length
        try:
            ids, log_prob, end_id, _ = session.generate(self._prompt(session, tokens), args, None)
        finally:
            args.max_length = max_length
        # CTranslate2's score: the log-prob divided by the length (length_penalty 1), which counts
        # the end token and, with the prompt in the result, the prompt after its start token.
        length = len(ids) + (end_id >= 0) + len(rest)
        shown = shown + list(ids)
        return GenerationResult([[session.token(i) for i in shown]], [shown],
                                [log_prob / length if length else 0.0] if return_scores else [])

    def generate_tokens(self, prompt, max_batch_size=0, batch_type="examples", *, max_length=512, min_length=0,
                        sampling_topk=1, sampling_topp=1, sampling_temperature=1, return_log_prob=False,
                        repetition_penalty=1, no_repeat_ngram_size=0, disable_unk=False, suppress_sequences=None,
                        end_token=None, static_prompt=None, cache_static_prompt=True, callback=None,
                        _end_step=True):
        """Yields a GenerationStepResult per generated token as soon as it is there (the generation
        runs on another thread; closing the iterator stops it), the end token included as the last
        step when one ended the generation, as in CTranslate2. `prompt` is one token list or a
        batch of them; a batch is generated one prompt after another, each step carrying its
        prompt's batch_id (CTranslate2 interleaves the prompts' steps). With return_log_prob each
        step has the token's log-probability."""
        _checks.unsupported(min_length=(min_length, 0), static_prompt=(static_prompt, None), callback=(callback, None))
        _checks.integer("max_batch_size", max_batch_size)
        _checks.batch_type(batch_type)
        with_log_prob = _checks.boolean("return_log_prob", return_log_prob)
        batch = isinstance(prompt, (list, tuple)) and len(prompt) > 0 and isinstance(prompt[0], (list, tuple))
        prompts = _checks.token_lists("prompt", prompt if batch else [prompt])
        args = self._args(locals())
        for batch_id, tokens in enumerate(prompts):
            yield from self._stream(tokens, args, batch_id, with_log_prob, _end_step)

    def _stream(self, tokens, args, batch_id, with_log_prob, end_step):
        """One prompt's steps, generated on another thread. The lock is held for the consumer's
        thread until the generation ends, so a call on this generator from inside the loop raises
        instead of waiting for the loop; the worker stays at most one step ahead of the consumer."""
        items = queue.Queue(maxsize=1)
        stop = threading.Event()
        self._lock.acquire_for(threading.get_ident())
        try:
            session = self._session(1)
            ids = self._prompt(session, tokens)
        except BaseException:
            self._lock.release()
            raise

        def on_token(token_id, text, log_prob):
            return _offer(items, stop, ("token", (token_id, log_prob)))

        def run():
            try:
                try:
                    _, _, end_id, end_log_prob = session.generate(ids, args, on_token)
                finally:
                    self._lock.release()
                if end_step and end_id >= 0:  # the end token is a step too
                    _offer(items, stop, ("token", (end_id, end_log_prob)))
                _offer(items, stop, ("end", None))
            except BaseException as e:  # raised in the caller's thread
                _offer(items, stop, ("error", e))

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            yield from self._steps(session, items, batch_id, with_log_prob)
        finally:
            stop.set()
            worker.join()

    @staticmethod
    def _steps(session, items, batch_id, with_log_prob):
        pending, step = None, 0
        while True:
            kind, value = items.get()
            if kind == "error":
                raise value
            if kind == "end":
                if pending is not None:
                    pending.is_last = True
                    yield pending
                return
            if pending is not None:
                yield pending
            token_id, log_prob = value
            pending = GenerationStepResult(step, batch_id, token_id, session.token(token_id),
                                           log_prob if with_log_prob else None)
            step += 1

    def generate_text(self, prompt, max_length=256, **kwargs):
        """heed's extension: continues the text `prompt` (the model's tokenizer) and returns the
        continuation as text."""
        if not isinstance(prompt, str):
            raise TypeError("prompt must be a str")
        with self._lock:
            session = self._session(1)
            ids = session.encode(prompt)
        return self._continue(session, ids, max_length, kwargs)

    def generate_chat(self, messages, max_length=256, **kwargs):
        """heed's extension: the assistant's answer to `messages` (a list of {"role", "content"}
        dicts, as transformers' apply_chat_template takes), rendered in the chat format the model
        file records (docs/python.md), as text. Takes generate_text's keyword arguments."""
        pairs = _chat_pairs(messages)
        with self._lock:
            session = self._session(1)
            ids = session.encode_chat(pairs)
        return self._continue(session, ids, max_length, kwargs)

    def render_chat(self, messages, add_generation_prompt=True):
        """`messages` in the model's chat format, as the template renders them (transformers'
        apply_chat_template with tokenize=False); with `add_generation_prompt`, followed by the text
        that opens the assistant's answer: the prompt text generate_chat continues."""
        pairs = _chat_pairs(messages)
        with self._lock:
            return self._session(1).render_chat(pairs, bool(add_generation_prompt))

    def _continue(self, session, ids, max_length, kwargs):
        pieces = []
        previous = -1 if not ids else ids[-1]
        for step in self.generate_tokens([session.token(i) for i in ids] if ids else [], max_length=max_length,
                                         _end_step=False, **kwargs):
            pieces.append(session.piece(previous, step.token_id))
            previous = step.token_id
        # The pieces are bytes (a character may span tokens); bytes that are not UTF-8 become U+FFFD.
        return b"".join(pieces).decode("utf-8", errors="replace")

    def score_batch(self, tokens, max_batch_size=0, batch_type="examples", max_input_length=1024, offset=0,
                    asynchronous=False):
        """The log-probability of each token given the ones before it: one ScoringResult per
        sequence, whose tokens are the sequence without its first token (the one the others are
        predicted from, usually the start token). No end token is added, as in CTranslate2."""
        _checks.unsupported(offset=(offset, 0), asynchronous=(asynchronous, False))
        max_batch_size = _checks.integer("max_batch_size", max_batch_size)
        _checks.batch_type(batch_type)
        max_input_length = _checks.integer("max_input_length", max_input_length)
        sequences = _checks.token_lists("tokens", tokens)
        if max_input_length > 0:
            sequences = [s[:max_input_length] for s in sequences]
        # A sequence of fewer than two tokens has nothing to score: an empty result, as in CTranslate2.
        results = [ScoringResult([], []) for _ in sequences]
        todo = [i for i, s in enumerate(sequences) if len(s) > 1]
        chunk = min(max_batch_size or _SCORE_BATCH, _SCORE_BATCH)
        with self._lock:
            session = self._session(chunk)
            for start in range(0, len(todo), chunk):
                indices = todo[start:start + chunk]
                ids = [[self._id(session, t) for t in sequences[i]] for i in indices]
                for i, sequence, log_probs in zip(indices, ids, session.score(ids)):
                    # Tokens outside the vocabulary come back as the unknown token, as in CTranslate2.
                    results[i] = ScoringResult([session.token(t) for t in sequence[1:]], log_probs)
        return results

    def generate_iterable(self, start_tokens, max_batch_size=32, batch_type="examples", **kwargs):
        """Generates for an iterable of prompts in groups of max_batch_size; yields one
        GenerationResult per prompt, in order."""
        yield from _batching.iterate(lambda b: self.generate_batch(b, batch_type=batch_type, **kwargs), max_batch_size,
                                     start_tokens)

    def score_iterable(self, tokens, max_batch_size=64, batch_type="examples", **kwargs):
        """Scores an iterable of token lists in groups; yields one ScoringResult per sequence, in order."""
        yield from _batching.iterate(lambda b: self.score_batch(b, batch_type=batch_type, **kwargs), max_batch_size,
                                     tokens)


def _chat_pairs(messages):
    if not isinstance(messages, (list, tuple)):
        raise TypeError("messages must be a list of {'role': str, 'content': str} dicts")
    pairs = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str) or not isinstance(m.get("content"), str):
            raise TypeError("message %d is not a {'role': str, 'content': str} dict" % (i + 1))
        pairs.append((m["role"], m["content"]))
    return pairs


def _offer(items, stop, item):
    """Puts `item` for the consumer unless it stopped listening (closed the iterator): False then.
    The wait is short so that a consumer that stops while the queue is full is noticed."""
    while not stop.is_set():
        try:
            items.put(item, timeout=0.05)
            return True
        except queue.Full:
            pass
    return False
