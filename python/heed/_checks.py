"""Argument checks shared by heed's Python classes: CTranslate2's arguments are accepted with the
same names and defaults; those heed cannot honour raise unless they are at their no-op default."""
import numbers
import threading



class _Seed:
    value = 0  # heed.set_random_seed's seed, read by each sampling call


random_seed = _Seed()


def integer(name, value, minimum=0, maximum=2**63 - 1):
    """An int in [minimum, maximum]: the default maximum is what the C++ side's 64-bit counts hold."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
    if value < minimum:
        raise ValueError("%s must be at least %d, not %d" % (name, minimum, value))
    if value > maximum:
        raise ValueError("%s must be at most %d, not %d" % (name, maximum, value))
    return int(value)


def number(name, value, minimum=None, exclusive=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s" % (name, type(value).__name__))
    if minimum is not None and (value < minimum or (exclusive and value == minimum)):
        raise ValueError("%s must be %s %s, not %s" % (name, "above" if exclusive else "at least", minimum, value))
    return float(value)


def decode_args(args, given, names):
    """Sets the decoding arguments `names` of `given` on `args` (a heed._heed argument object whose
    attributes are the runtime's decoding options): their types are checked here (TypeError); their
    ranges are the runtime's one check of decoding options (ValueError naming the argument and the
    range it accepts; NaN refused)."""
    for name in names:
        current, value = getattr(args, name), given[name]
        if isinstance(current, bool):
            value = boolean(name, value)
        elif isinstance(current, int):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__))
            value = int(value)
        else:
            value = float(number(name, value))
        setattr(args, name, value)


def boolean(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False, not %s" % (name, type(value).__name__))
    return value


def token_lists(name, value, allow_none=False):
    """A list of token lists (each a list of str)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (list, tuple)):
        raise TypeError("%s must be a list of token lists, not %s" % (name, type(value).__name__))
    out = []
    for i, tokens in enumerate(value):
        if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)):
            raise TypeError("%s[%d] must be a list of tokens (str), not %s" % (name, i, type(tokens).__name__))
        for t in tokens:
            if not isinstance(t, str):
                raise TypeError("%s[%d] holds a %s, not a token (str)" % (name, i, type(t).__name__))
        out.append(list(tokens))
    return out


def strings(name, value):
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError("%s must be a list of str, not %s" % (name, type(value).__name__))
    for i, s in enumerate(value):
        if not isinstance(s, str):
            raise TypeError("%s[%d] must be a str, not %s" % (name, i, type(s).__name__))
    return list(value)


def end_tokens(value):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return strings("end_token", value)


def batch_type(value):
    if value not in ("examples", "tokens"):
        raise ValueError("batch_type must be 'examples' or 'tokens', not %r" % (value,))
    return value


def unsupported(**given):
    """Each argument as (value, no-op default): one that is not at its default raises ValueError."""
    for name, (value, default) in given.items():
        if value != default:
            raise ValueError("%s=%r is not supported by heed (only %r)" % (name, value, default))


def model_options(device_name, device_index, compute, inter_threads, intra_threads, max_queued_batches,
                  flash_attention, tensor_parallel, files):
    """The constructor arguments CTranslate2's Translator and Generator share: (threads, the
    weight type a model folder is converted to)."""
    device(device_name, device_index)
    unsupported(inter_threads=(inter_threads, 1), max_queued_batches=(max_queued_batches, 0),
                flash_attention=(flash_attention, False), tensor_parallel=(tensor_parallel, False), files=(files, None))
    return integer("intra_threads", intra_threads), compute_type(compute)


def spin(value):
    """spin_microseconds: how long an idle worker thread waits for more work before it sleeps."""
    value = integer("spin_microseconds", value)
    if value > 1000000:
        raise ValueError("spin_microseconds must be at most 1000000 (1 s), not %d" % value)
    return value


def device(value, device_index=0):
    if value not in ("cpu", "auto"):
        raise ValueError("device=%r is not supported: heed runs on the CPU (device='cpu')" % (value,))
    if device_index not in (0, [0]):
        raise ValueError("device_index=%r is not supported: heed runs on one CPU device" % (device_index,))


# CTranslate2's compute types as heed converts a model folder (.heed files keep their own weights):
# "auto" is the fastest (int8, as CTranslate2 picks on a CPU), float16 is heed's float16 weights.
COMPUTE_TYPES = {"default": "default", "auto": "int8", "int8": "int8", "int8_float32": "int8",
                 "float32": "float32", "float16": "float16"}
# CTranslate2's compute types without a CPU implementation: refused with CTranslate2's own error.
NO_CPU_KERNEL = ("int8_float16", "int8_bfloat16", "int16", "bfloat16")


def compute_type(value):
    if value in NO_CPU_KERNEL:
        raise ValueError("Requested %s compute type, but the target device or backend do not support efficient %s "
                         "computation." % (value, value))
    if value not in COMPUTE_TYPES:
        known = sorted(set(COMPUTE_TYPES) | set(NO_CPU_KERNEL))
        raise ValueError("compute_type=%r is not supported (one of %s)" % (value, ", ".join(known)))
    return COMPUTE_TYPES[value]


class CallLock:
    """Serializes the calls on one model object. A call made from inside another call on the same
    object (a callback calling its own translator, a loop over generate_tokens calling its own
    generator) raises RuntimeError instead of deadlocking."""

    def __init__(self, owner):
        self._lock = threading.Lock()
        self._holder = None
        self._owner = owner

    def __enter__(self):
        self.acquire_for(threading.get_ident())
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def acquire_for(self, thread_id):
        """Takes the lock for a call whose results go to the thread `thread_id` (the caller, or the
        consumer of a stream computed on another thread): until release(), that thread's calls on
        the object raise, since they would wait for the call they are part of."""
        if self._holder == thread_id:
            raise RuntimeError("this %s is busy with the call that made this one (a callback cannot call the object "
                               "that called it, nor a loop over generate_tokens the generator streaming it; create "
                               "another %s for that)" % (self._owner, self._owner))
        self._lock.acquire()
        self._holder = thread_id

    def release(self):
        """Ends the call: may run on another thread than acquire_for (a stream's worker)."""
        self._holder = None
        self._lock.release()
