# The public API's types (docs/python.md describes each call).
from os import PathLike
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Set, Union

import numpy

_Path = Union[str, PathLike]
_Tokens = List[str]

class TranslationResult:
    hypotheses: List[_Tokens]
    scores: List[float]
    attention: List[List[List[float]]]
    def __getitem__(self, i: int) -> Dict[str, Any]: ...
    def __len__(self) -> int: ...

class ScoringResult:
    tokens: _Tokens
    log_probs: List[float]

class GenerationResult:
    sequences: List[_Tokens]
    sequences_ids: List[List[int]]
    scores: List[float]

class GenerationStepResult:
    step: int
    batch_id: int
    token_id: int
    hypothesis_id: int
    token: str
    log_prob: Optional[float]
    is_last: bool

class _ModelObject:
    device: str
    device_index: List[int]
    compute_type: str
    model_is_loaded: bool
    num_queued_batches: int
    num_active_batches: int
    def unload_model(self, to_cpu: bool = False) -> None: ...
    def load_model(self, keep_cache: bool = False) -> None: ...

class Translator(_ModelObject):
    num_translators: int
    def __init__(self, model_path: _Path, device: str = "cpu", device_index: int = 0, compute_type: str = "default",
                 inter_threads: int = 1, intra_threads: int = 0, max_queued_batches: int = 0,
                 flash_attention: bool = False, tensor_parallel: bool = False, files: Any = None,
                 spin_microseconds: int = 100) -> None: ...
    def translate_batch(self, source: List[_Tokens], target_prefix: Optional[List[_Tokens]] = None,
                        max_batch_size: int = 0, batch_type: str = "examples", asynchronous: bool = False,
                        beam_size: int = 2, patience: float = 1, num_hypotheses: int = 1, length_penalty: float = 1,
                        coverage_penalty: float = 0, repetition_penalty: float = 1, no_repeat_ngram_size: int = 0,
                        disable_unk: bool = False, suppress_sequences: Optional[List[_Tokens]] = None,
                        end_token: Optional[Union[str, List[str]]] = None, return_end_token: bool = False,
                        prefix_bias_beta: float = 0, max_input_length: int = 1024, max_decoding_length: int = 256,
                        min_decoding_length: int = 1, use_vmap: bool = False, return_scores: bool = False,
                        return_logits_vocab: bool = False, return_attention: bool = False,
                        return_alternatives: bool = False, min_alternative_expansion_prob: float = 0,
                        sampling_topk: int = 1, sampling_topp: float = 1, sampling_temperature: float = 1,
                        replace_unknowns: bool = False,
                        callback: Optional[Callable[[GenerationStepResult], bool]] = None
                        ) -> List[TranslationResult]: ...
    def translate_iterable(self, source: Iterable[_Tokens], target_prefix: Optional[Iterable[_Tokens]] = None,
                           max_batch_size: int = 32, batch_type: str = "examples",
                           **kwargs: Any) -> Iterator[TranslationResult]: ...
    def score_batch(self, source: List[_Tokens], target: List[_Tokens], max_batch_size: int = 0,
                    batch_type: str = "examples", max_input_length: int = 1024, offset: int = 0,
                    asynchronous: bool = False) -> List[ScoringResult]: ...
    def score_iterable(self, source: Iterable[_Tokens], target: Iterable[_Tokens], max_batch_size: int = 64,
                       batch_type: str = "examples", **kwargs: Any) -> Iterator[ScoringResult]: ...
    def translate_text(self, text: List[str], split_sentences: bool = True, source_language: Optional[str] = None,
                       **kwargs: Any) -> List[str]: ...

class Generator(_ModelObject):
    num_generators: int
    def __init__(self, model_path: _Path, device: str = "cpu", device_index: int = 0, compute_type: str = "default",
                 inter_threads: int = 1, intra_threads: int = 0, max_queued_batches: int = 0,
                 flash_attention: bool = False, tensor_parallel: bool = False, files: Any = None,
                 spin_microseconds: int = 100) -> None: ...
    def generate_batch(self, start_tokens: List[_Tokens], **kwargs: Any) -> List[GenerationResult]: ...
    def generate_tokens(self, prompt: Union[_Tokens, List[_Tokens]], max_batch_size: int = 0,
                        batch_type: str = "examples", *, max_length: int = 512, min_length: int = 0,
                        sampling_topk: int = 1, sampling_topp: float = 1, sampling_temperature: float = 1,
                        return_log_prob: bool = False, repetition_penalty: float = 1,
                        no_repeat_ngram_size: int = 0, disable_unk: bool = False,
                        suppress_sequences: Optional[List[_Tokens]] = None,
                        end_token: Optional[Union[str, List[str]]] = None, static_prompt: Any = None,
                        cache_static_prompt: bool = True, callback: Any = None) -> Iterator[GenerationStepResult]: ...
    def generate_text(self, prompt: str, max_length: int = 256, **kwargs: Any) -> str: ...
    def score_batch(self, tokens: List[_Tokens], max_batch_size: int = 0, batch_type: str = "examples",
                    max_input_length: int = 1024, offset: int = 0,
                    asynchronous: bool = False) -> List[ScoringResult]: ...
    def generate_iterable(self, start_tokens: Iterable[_Tokens], max_batch_size: int = 32,
                          batch_type: str = "examples", **kwargs: Any) -> Iterator[GenerationResult]: ...
    def score_iterable(self, tokens: Iterable[_Tokens], max_batch_size: int = 64, batch_type: str = "examples",
                       **kwargs: Any) -> Iterator[ScoringResult]: ...

class Embedder:
    dimension: int
    def __init__(self, model_path: _Path, device: str = "cpu", intra_threads: int = 1, max_batch_size: int = 32,
                 compute_type: str = "default", spin_microseconds: int = 100) -> None: ...
    def encode(self, texts: List[str], pooling: Optional[str] = None,
               normalize: Optional[bool] = None) -> numpy.ndarray: ...

def convert(source: _Path, output: _Path, source_format: Optional[str] = None, quantize: str = "int8",
            group_size: Optional[int] = None, activation_block: Optional[int] = None,
            outlier_channels: Optional[int] = None, calibration: Optional[_Path] = None,
            vmap: Optional[_Path] = None) -> Dict[str, Any]: ...
def inspect(path: _Path) -> Dict[str, Any]: ...
def contains_model(path: _Path) -> bool: ...
def get_cuda_device_count() -> int: ...
def get_supported_compute_types(device: str, device_index: int = 0) -> Set[str]: ...
def set_log_level(level: int) -> None: ...
def get_log_level() -> int: ...
def set_random_seed(seed: int) -> None: ...

__version__: str
