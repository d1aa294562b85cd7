"""Result objects with CTranslate2's attributes (and its dict-style access for older code)."""


class TranslationResult:
    """hypotheses: token lists, best first; scores: their scores (when return_scores); attention:
    per hypothesis, per target token, the weights over the source (when return_attention)."""

    def __init__(self, hypotheses, scores, attention):
        self.hypotheses = hypotheses
        self.scores = scores
        self.attention = attention

    def __getitem__(self, i):
        item = {"tokens": self.hypotheses[i]}
        if self.scores:
            item["score"] = self.scores[i]
        if self.attention:
            item["attention"] = self.attention[i]
        return item

    def __len__(self):
        return len(self.hypotheses)

    def __repr__(self):
        return "TranslationResult(hypotheses=%r, scores=%r, attention=%r)" % (self.hypotheses, self.scores,
                                                                               self.attention)


class ScoringResult:
    """tokens: the scored target tokens with the end token; log_probs: the log-probability of each."""

    def __init__(self, tokens, log_probs):
        self.tokens = tokens
        self.log_probs = log_probs

    def __repr__(self):
        return "ScoringResult(tokens=%r, log_probs=%r)" % (self.tokens, self.log_probs)


class GenerationResult:
    """sequences: token lists; sequences_ids: their ids; scores: their log-probs (return_scores)."""

    def __init__(self, sequences, sequences_ids, scores):
        self.sequences = sequences
        self.sequences_ids = sequences_ids
        self.scores = scores

    def __repr__(self):
        return "GenerationResult(sequences=%r, sequences_ids=%r, scores=%r)" % (self.sequences, self.sequences_ids,
                                                                                 self.scores)


class GenerationStepResult:
    """One generated token of generate_tokens (or a translate_batch callback)."""

    def __init__(self, step, batch_id, token_id, token, log_prob=None, is_last=False, hypothesis_id=0):
        self.step = step
        self.batch_id = batch_id
        self.token_id = token_id
        self.hypothesis_id = hypothesis_id
        self.token = token
        self.log_prob = log_prob
        self.is_last = is_last

    def __repr__(self):
        return "GenerationStepResult(step=%d, token_id=%d, token=%r, is_last=%r)" % (self.step, self.token_id,
                                                                                      self.token, self.is_last)
