"""`heed COMMAND --help` of every command: one name per concept and one meaning per short flag.

Reads the commands from `heed --help` and each command's options from its own --help (what a
user sees), then checks that
- no short flag means two different options across commands,
- the commands that have a concept spell it the same way (--beam, --batch, --threads, --max-len,
  --min-len, --temperature, --top-k, --top-p, --seed, --n-best), and no command uses another
  spelling as an option's main name.
usage: cli_flags_test.py "EMULATOR" HEED   (EMULATOR may be empty)
"""
import re
import shlex
import subprocess
import sys

# The concepts and which commands must offer them under exactly that name.
REQUIRED = {
    "translate": ["beam", "n-best", "batch", "threads", "max-len", "min-len", "temperature", "top-k", "top-p", "seed",
                  "disable-unk", "suppress", "repetition-penalty", "no-repeat-ngram", "end-token"],
    "generate": ["threads", "max-len", "temperature", "top-k", "top-p", "seed", "disable-unk", "suppress",
                 "repetition-penalty", "no-repeat-ngram", "end-token", "stop"],
    "bench": ["beam", "batch", "threads"],
    "embed": ["batch", "threads"],
    "score": ["threads"],
}
# Other spellings of those concepts: never an option's main name (aliases in parentheses are fine).
OTHER_SPELLINGS = {"beam-size", "beam_size", "nbest", "n_best", "num-hypotheses", "batch-size", "num-threads",
                   "max-length", "max-tokens", "tokens-to-generate", "min-length", "sampling-topk", "sampling-topp",
                   "sampling-temperature", "topk", "topp", "random-seed"}

OPTION = re.compile(r"^  (?:-(?P<short>[A-Za-z]), |    )--(?P<name>[a-z0-9-]+)")


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def main():
    emulator, heed = shlex.split(sys.argv[1]), sys.argv[2]
    top = run(emulator + [heed, "--help"])
    commands = re.findall(r"^  ([a-z]+) {2,}", top.stdout.split("commands:", 1)[1], re.M)
    failures = []
    if len(commands) < 7:
        failures.append(f"heed --help lists too few commands: {commands}")
    shorts = {}  # letter -> {long name: [commands]}
    for command in commands:
        out = run(emulator + [heed, command, "--help"])
        if out.returncode != 0:
            failures.append(f"heed {command} --help: exit {out.returncode}")
            continue
        names = set()
        for line in out.stdout.split("options:", 1)[-1].splitlines():
            m = OPTION.match(line)
            if not m:
                continue
            names.add(m["name"])
            if m["short"]:
                shorts.setdefault(m["short"], {}).setdefault(m["name"], []).append(command)
        for name in sorted(names & OTHER_SPELLINGS):
            failures.append(f"heed {command}: --{name} is another spelling of a shared concept")
        for name in REQUIRED.get(command, []):
            if name not in names:
                failures.append(f"heed {command}: no --{name}")
    for letter, meanings in sorted(shorts.items()):
        if len(meanings) > 1:
            failures.append(f"-{letter} means " + " and ".join(f"--{n} ({', '.join(c)})" for n, c in meanings.items()))
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"cli flags: {len(commands)} commands, {len(shorts)} short flags, all consistent")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
