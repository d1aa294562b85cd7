"""English number words -> German number words: the task heed's demo model learns.

English is written the American way without "and" ("three hundred forty two"); German is written
as its parts separated by spaces ("drei hundert zwei und vierzig" = dreihundertzweiundvierzig),
because heed's demo tokenizer splits on whitespace. The German order differs from the English one
(units before tens, "ein"/"eins"), so the model has to learn a real reordering, not a word lookup.

Run as a script to write the data sets:  python3 number_words.py OUT_DIR
"""

import os
import random
import sys

MAX_NUMBER = 999_999
SEED = 20240601
TRAIN_SIZE = 60_000
VALID_SIZE = 2_000
SMALL_REPEATS = 3

EN_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
           "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
           "seventeen", "eighteen", "nineteen"]
EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

# German unit words as they appear at the end of a number ("eins") and before "und", "hundert"
# or "tausend" ("ein").
DE_ONES = ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
           "zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn",
           "achtzehn", "neunzehn"]
DE_TENS = ["", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig",
           "neunzig"]


def english_below_1000(n):
    words = []
    if n >= 100:
        words += [EN_ONES[n // 100], "hundred"]
        n %= 100
    if n >= 20:
        words.append(EN_TENS[n // 10])
        n %= 10
        if n:
            words.append(EN_ONES[n])
    elif n:
        words.append(EN_ONES[n])
    return words


def english(n):
    """Words of 0 <= n <= 999,999, e.g. 342 -> "three hundred forty two"."""
    if not 0 <= n <= MAX_NUMBER:
        raise ValueError(f"{n} is outside 0..{MAX_NUMBER}")
    if n == 0:
        return "zero"
    words = []
    if n >= 1000:
        words += english_below_1000(n // 1000) + ["thousand"]
    words += english_below_1000(n % 1000)
    return " ".join(words)


def german_unit(n, final):
    return "eins" if n == 1 and final else ("ein" if n == 1 else DE_ONES[n])


def german_below_1000(n, final):
    """`final`: the number ends here (1 is "eins"); otherwise "tausend" follows (1 is "ein")."""
    words = []
    if n >= 100:
        words += [german_unit(n // 100, final=False), "hundert"]
        n %= 100
    if n >= 20:
        if n % 10:
            words += [german_unit(n % 10, final=False), "und"]
        words.append(DE_TENS[n // 10])
    elif n:
        words.append(german_unit(n, final))
    return words


def german(n):
    """Parts of 0 <= n <= 999,999, e.g. 342 -> "drei hundert zwei und vierzig"."""
    if not 0 <= n <= MAX_NUMBER:
        raise ValueError(f"{n} is outside 0..{MAX_NUMBER}")
    if n == 0:
        return "null"
    words = []
    if n >= 1000:
        words += german_below_1000(n // 1000, final=False) + ["tausend"]
    words += german_below_1000(n % 1000, final=True)
    return " ".join(words)


def sample_numbers(rng, count, low, exclude):
    """`count` distinct numbers drawn uniformly from low..MAX_NUMBER, none of them in `exclude`."""
    taken = set(exclude)
    out = []
    while len(out) < count:
        n = rng.randrange(low, MAX_NUMBER + 1)
        if n not in taken:
            taken.add(n)
            out.append(n)
    return out


def make_splits(seed=SEED):
    """(train, valid) number lists, disjoint and reproducible from `seed`. Validation numbers are
    >= 1000 and never seen in training, so validation accuracy measures generalisation to unseen
    combinations. Training holds every number below 1000 SMALL_REPEATS times (they are the
    building blocks of every thousand-group) plus distinct random larger numbers."""
    rng = random.Random(seed)
    valid = sample_numbers(rng, VALID_SIZE, 1000, exclude=())
    large = sample_numbers(rng, TRAIN_SIZE - SMALL_REPEATS * 1000, 1000, exclude=valid)
    train = list(range(1000)) * SMALL_REPEATS + large
    rng.shuffle(train)
    return train, valid


def source_vocabulary():
    words = EN_ONES + [w for w in EN_TENS if w] + ["hundred", "thousand"]
    return ["<blank>", "<s>", "</s>"] + words + ["<unk>"]


def target_vocabulary():
    words = DE_ONES[:1] + ["eins", "ein"] + DE_ONES[2:] + [w for w in DE_TENS if w] + \
        ["und", "hundert", "tausend"]
    return ["<blank>", "<s>", "</s>"] + words + ["<unk>"]


def write_split(out_dir, name, numbers):
    with open(os.path.join(out_dir, f"{name}.en"), "w", encoding="utf-8") as en, \
         open(os.path.join(out_dir, f"{name}.de"), "w", encoding="utf-8") as de, \
         open(os.path.join(out_dir, f"{name}.num"), "w", encoding="utf-8") as num:
        for n in numbers:
            en.write(english(n) + "\n")
            de.write(german(n) + "\n")
            num.write(f"{n}\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: number_words.py OUT_DIR")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    train, valid = make_splits()
    write_split(out_dir, "train", train)
    write_split(out_dir, "valid", valid)
    print(f"numbers: {len(train)} train, {len(valid)} valid pairs in {out_dir}")


if __name__ == "__main__":
    main()
