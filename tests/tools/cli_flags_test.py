"""`heed COMMAND --help` of every command: one name per concept and one meaning per short flag.

Reads the commands from `heed --help` and each command's options from its own --help (what a
user sees), then checks that
- no short flag means two different options across commands,
- the commands that have a concept spell it the same way (--beam, --batch, --threads, --max-len,
  --min-len, --temperature, --top-k, --top-p, --seed, --n-best), and no command uses another
  spelling as an option's main name,
- every option listed has a help text and is one the command's parser knows,
- the parser's forms and errors (CLI11): -t4, -t 4, --threads=4, --model=FILE, -m FILE accepted;
  NaN or infinite numbers, unknown options and missing values refused (exit 2, a message naming
  the option). A model that does not exist shows that the options were read (exit 1, its path).
usage: cli_flags_test.py "EMULATOR" HEED   (EMULATOR may be empty)
"""
import os
import re
import shlex
import subprocess
import sys

# The concepts and which commands must offer them under exactly that name.
REQUIRED = {
    "translate": ["beam", "n-best", "batch", "threads", "max-len", "min-len", "temperature", "top-k", "top-p", "seed",
                  "disable-unk", "suppress", "repetition-penalty", "no-repeat-ngram", "end-token", "no-progress"],
    "generate": ["threads", "max-len", "temperature", "top-k", "top-p", "seed", "disable-unk", "suppress",
                 "repetition-penalty", "no-repeat-ngram", "end-token", "stop", "no-progress"],
    "bench": ["beam", "batch", "threads"],
    "embed": ["batch", "threads", "no-progress"],
    "classify": ["batch", "threads", "no-progress"],
    "fill-mask": ["batch", "threads", "no-progress"],
    "score": ["threads"],
}
# Other spellings of those concepts: never an option's main name (aliases in parentheses are fine).
OTHER_SPELLINGS = {"beam-size", "beam_size", "nbest", "n_best", "num-hypotheses", "batch-size", "num-threads",
                   "max-length", "max-tokens", "tokens-to-generate", "min-length", "sampling-topk", "sampling-topp",
                   "sampling-temperature", "topk", "topp", "random-seed"}

OPTION = re.compile(r"^  (?:-(?P<short>[A-Za-z]), |    )--(?P<name>[a-z0-9-]+)(?P<rest>.*)$")
HELP_COLUMN = 28  # where print_help starts an option's help text
MISSING = "/nonexistent/heed-cli-flags.heed"


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120, check=False)


def options_of(help_text):
    """{name: (short letter or None, help text)} of a command's --help."""
    lines = help_text.split("options:", 1)[-1].splitlines()
    found = {}
    for i, line in enumerate(lines):
        m = OPTION.match(line)
        if not m:
            continue
        text = line[HELP_COLUMN:].strip() if len(line) > HELP_COLUMN else ""
        if not text and i + 1 < len(lines) and lines[i + 1].startswith(" " * HELP_COLUMN):
            text = lines[i + 1].strip()
        found[m["name"]] = (m["short"], text)
    return found


def check_known(emulator, heed, command, options, failures):
    """Every option the help lists is one the parser takes (the usage error, if any, is another)."""
    if "help" not in options:
        failures.append(f"heed {command} --help does not list --help")
    for name, (_, text) in sorted(options.items()):
        if not text:
            failures.append(f"heed {command} --{name}: no help text")
        out = run(emulator + [heed, command, "--" + name])
        if "unknown option" in out.stderr:
            failures.append(f"heed {command} --{name}: listed but unknown: {out.stderr.strip()}")


# (arguments, exit code, what stderr must contain)
FORMS = [
    (["translate", "-t4", "--model=" + MISSING], 1, MISSING),
    (["translate", "-t", "4", "-m", MISSING], 1, MISSING),
    (["translate", "--threads=4", "--model", MISSING], 1, MISSING),
    (["generate", "-m" + MISSING, "--temperature=0.5"], 1, MISSING),
    (["embed", "--model=" + MISSING, "--batch=4", "-t0"], 1, MISSING),
    (["translate", "-m", MISSING, "--temperature", "nan"], 2, "option '--temperature' must be a finite number"),
    (["generate", "-m", MISSING, "--temperature", "nan"], 2, "option '--temperature' must be a finite number"),
    (["generate", "-m", MISSING, "--top-p=inf"], 2, "option '--top-p' must be a finite number"),
    (["translate", "-m", MISSING, "--repetition-penalty", "-inf"], 2, "option '--repetition-penalty' must be a finite"),
    (["translate", "-m", MISSING, "--bogus"], 2, "heed translate: unknown option '--bogus'"),
    (["translate", "-m", MISSING, "--bogus=3"], 2, "heed translate: unknown option '--bogus'"),
    (["inspect", MISSING, "-x"], 2, "heed inspect: unknown option '-x'"),
    (["translate", "-m"], 2, "heed translate: option '--model' needs a value (MODEL.heed)"),
    (["translate", "-m", MISSING, "--threads"], 2, "option '--threads' needs a value (N)"),
    (["translate", "-m", MISSING, "--no-mmap=1"], 2, "option '--no-mmap' takes no value"),
    (["translate", "-m", MISSING, "-t", "four"], 2, "'--threads' wants a whole number from 0 to 256, got 'four'"),
    (["translate", "-m", MISSING, "--bogus", "--help"], 0, ""),
]


def check_forms(emulator, heed, failures):
    for args, code, message in FORMS:
        out = run(emulator + [heed] + args)
        line = "heed " + " ".join(args)
        if out.returncode != code or message not in out.stderr:
            failures.append(f"{line}: exit {out.returncode} (want {code}), stderr {out.stderr.strip()!r}")
        if code == 2 and "(see 'heed " not in out.stderr:
            failures.append(f"{line}: the usage error does not point to --help")


def check_version(emulator, heed, failures):
    """--version names the file formats heed reads and writes: 1 to the runtime's kFormatVersion."""
    header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../runtime/include/heed/model.h")
    with open(header, encoding="utf-8") as f:
        current = re.search(r"kFormatVersion = (\d+);", f.read()).group(1)
    out = run(emulator + [heed, "--version"])
    want = f"(reads .heed file formats 1 to {current}, writes {current})"
    if out.returncode != 0 or want not in out.stdout:
        failures.append(f"heed --version: {out.stdout.strip()!r}, want {want!r}")


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
        options = options_of(out.stdout)
        names = set(options)
        for name, (short, _) in options.items():
            if short:
                shorts.setdefault(short, {}).setdefault(name, []).append(command)
        check_known(emulator, heed, command, options, failures)
        for name in sorted(names & OTHER_SPELLINGS):
            failures.append(f"heed {command}: --{name} is another spelling of a shared concept")
        for name in REQUIRED.get(command, []):
            if name not in names:
                failures.append(f"heed {command}: no --{name}")
    for letter, meanings in sorted(shorts.items()):
        if len(meanings) > 1:
            failures.append(f"-{letter} means " + " and ".join(f"--{n} ({', '.join(c)})" for n, c in meanings.items()))
    check_forms(emulator, heed, failures)
    check_version(emulator, heed, failures)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"cli flags: {len(commands)} commands, {len(shorts)} short flags, all consistent")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
