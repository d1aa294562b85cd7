"""How CTranslate2's batch arguments split work: max_batch_size / batch_type, and the *_iterable
methods' groups."""
import itertools

from . import _checks


def batches(sequences, max_batch_size, kind):
    """Index lists that split `sequences` as CTranslate2's max_batch_size does: at most that many
    examples, or (batch_type "tokens") at most that many tokens counted as the batch's longest
    sequence times its size (padding included); a sequence longer than the budget goes alone. 0:
    one batch. Results do not depend on the split: heed decodes each sequence as it would alone."""
    if not sequences:
        return []
    if max_batch_size <= 0:
        return [list(range(len(sequences)))]
    out, batch, longest = [], [], 0
    for i, s in enumerate(sequences):
        cost = 1 if kind == "examples" else max(len(s), 1)
        grown = max(longest, cost)
        need = len(batch) + 1 if kind == "examples" else grown * (len(batch) + 1)
        if batch and need > max_batch_size:
            out.append(batch)
            batch, grown = [], cost
        batch.append(i)
        longest = grown
    out.append(batch)
    return out


def iterate(call, max_batch_size, first, second=None):
    """CTranslate2's *_iterable: reads `first` (and `second` beside it) max_batch_size items at a
    time and yields the results of `call` on each group, in order."""
    _checks.integer("max_batch_size", max_batch_size, 1)
    firsts = iter(first)
    seconds = iter(second) if second is not None else None
    while True:
        batch = list(itertools.islice(firsts, max_batch_size))
        if not batch:
            return
        if seconds is None:
            yield from call(batch)
        else:
            yield from call(batch, list(itertools.islice(seconds, len(batch))))
