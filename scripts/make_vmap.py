#!/usr/bin/env python3
"""Writes a vocabulary map (`heed convert --vmap`, CTranslate2's format) from a parallel corpus.

The corpus must be tokenized as the model tokenizes (SentencePiece pieces, or the vocabulary's
tokens), one sentence a line, source and target line by line. For each source token the map
lists the target tokens that co-occur with it most strongly (Dice coefficient over the sentence
pairs: 2 c(s, t) / (c(s) + c(t)), at least --min-count pairs), at most --top of them; the
--frequent most frequent target tokens go on the line with an empty source (always candidates),
as lexical shortlists do (a lex.50.50 table is --top 50 --frequent 50). A translation model's own
outputs on its domain's text make a good target side: the map then holds what it chooses.

    python3 scripts/make_vmap.py corpus.src corpus.tgt > vmap.txt
    heed convert --from ct2 model_dir -o model.heed --vmap vmap.txt
    heed translate -m model.heed --use-vmap < input.txt
"""
import argparse
import collections
import sys


def read_pairs(source, target):
    with open(source, encoding="utf-8") as s, open(target, encoding="utf-8") as t:
        for number, (src, tgt) in enumerate(zip(s, t), 1):
            yield number, src.split(), tgt.split()


def count(pairs):
    """Sentence counts of each source token, target token and co-occurring pair."""
    source, target, both = collections.Counter(), collections.Counter(), collections.Counter()
    frequency = collections.Counter()
    for _, src, tgt in pairs:
        frequency.update(tgt)
        src_set, tgt_set = set(src), set(tgt)
        source.update(src_set)
        target.update(tgt_set)
        for s in src_set:
            for t in tgt_set:
                both[s, t] += 1
    return source, target, both, frequency


def candidates(source, target, both, top, min_count):
    """For each source token, its --top target tokens by Dice coefficient."""
    by_source = collections.defaultdict(list)
    for (s, t), c in both.items():
        if c >= min_count:
            by_source[s].append((2.0 * c / (source[s] + target[t]), t))
    for s, scored in by_source.items():
        scored.sort(key=lambda x: (-x[0], x[1]))
        by_source[s] = [t for _, t in scored[:top]]
    return by_source


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="source side, tokenized, one sentence a line")
    parser.add_argument("target", help="target side, line by line with the source")
    parser.add_argument("--top", type=int, default=50, help="candidates per source token (default 50)")
    parser.add_argument("--frequent", type=int, default=100,
                        help="most frequent target tokens, always candidates (default 100)")
    parser.add_argument("--min-count", type=int, default=2,
                        help="sentence pairs a source and target token must share (default 2)")
    args = parser.parse_args()
    source, target, both, frequency = count(read_pairs(args.source, args.target))
    if not source:
        sys.exit("make_vmap.py: the corpus is empty")
    by_source = candidates(source, target, both, args.top, args.min_count)
    out = sys.stdout
    if args.frequent > 0:
        out.write("\t" + " ".join(t for t, _ in frequency.most_common(args.frequent)) + "\n")
    for s in sorted(by_source):
        out.write(s + "\t" + " ".join(by_source[s]) + "\n")
    print("make_vmap.py: %d source tokens, %d with candidates" % (len(source), len(by_source)), file=sys.stderr)


if __name__ == "__main__":
    main()
