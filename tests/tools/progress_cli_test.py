#!/usr/bin/python3
"""The progress line of `heed translate`, `embed`, `generate`, `classify` and `fill-mask` (and `heed convert`'s bar), with
stderr on a pseudo-terminal, against counts computed here from the input.

    progress_cli_test.py "EMULATOR" HEED SOURCE_DIR WORK_DIR   (EMULATOR may be empty)

Models: the demo translation model (demo/numbers-en-de), the BERT and GPT-2 fixtures
(tests/fixtures/hf-bert/model, tests/fixtures/hf-gpt2), converted here.

For each command, stdin a regular file and stderr a pseudo-terminal:
- the line is redrawn after every batch with the lines done so far and the share of the file's
  bytes those lines took (floor of bytes * 100 / size, computed here from the lines), and a last
  line gives the total lines;
- stdout is byte for byte what the same command writes with stderr not a terminal, and that run
  writes nothing to stderr;
- with --no-progress nothing reaches the terminal, and with stderr a pipe nothing reaches it either.
`heed classify` and `heed fill-mask` (BERT's heads, tests/fixtures/hf-bert) are checked the same way.
With stdin a pipe (its size unknown) the line has no share and no time left.
Standard library only.
"""
import os
import pty
import re
import shlex
import subprocess
import sys
import threading

failures = []  # every failed check's message, each printed as it fails


def check(condition, message):
    if condition:
        return True
    print("FAIL:", message)
    failures.append(message)
    return False


def run_on_terminal(cmd, stdin):
    """Runs cmd with stderr on a new pseudo-terminal; returns (exit code, stdout bytes, what the
    terminal received)."""
    master, slave = pty.openpty()
    received = []

    def read_terminal():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: every writer closed the terminal
                return
            if not data:
                return
            received.append(data)

    reader = threading.Thread(target=read_terminal)
    reader.start()
    p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=slave, check=False)
    os.close(slave)
    reader.join(timeout=60)
    os.close(master)
    return p.returncode, p.stdout, b"".join(received).decode("utf-8", "replace")


def run_plain(cmd, stdin):
    p = subprocess.run(cmd, stdin=stdin, capture_output=True, check=False)
    return p.returncode, p.stdout, p.stderr


def drawn_lines(terminal):
    """The states drawn: each '\\r'-started text with the erase-line sequences taken out."""
    text = terminal.replace("\x1b[K", "")
    return [part.strip() for part in re.split(r"[\r\n]+", text) if part.strip()]


PROGRESS = re.compile(r"^heed (\w[\w-]*): (\d+) lines?, (\d+\.\d) lines/s(?:, (\d+)%(?:, (\d+:\d\d(?::\d\d)?) left)?)?$")
FINAL = re.compile(r"^heed (\w[\w-]*): (\d+) lines? in (\d+:\d\d(?::\d\d)?), (\d+\.\d) lines/s$")


def expected_states(lines, batch_ends, size):
    """(lines done, percent) after each batch: the bytes of the lines up to the batch's end."""
    states = []
    for end in batch_ends:
        taken = sum(len(line.encode("utf-8")) + 1 for line in lines[:end])
        states.append((end, min(taken, size) * 100 // size))
    return states


def check_command(name, cmd, input_path, lines, batch_ends):
    """One command over the file: the states drawn, the totals, stdout against the plain run."""
    size = os.path.getsize(input_path)
    with open(input_path, "rb") as f:
        code, out, terminal = run_on_terminal(cmd, f)
    with open(input_path, "rb") as f:
        plain_code, plain_out, plain_err = run_plain(cmd, f)
    check(code == 0 and plain_code == 0, f"{name}: exit codes {code} and {plain_code}")
    check(plain_err == b"", f"{name}: stderr not a terminal, yet it got {plain_err[:200]!r}")
    check(out == plain_out, f"{name}: stdout on a terminal run differs from the plain run")
    check(len(out.splitlines()) == len(lines), f"{name}: {len(out.splitlines())} output lines for {len(lines)}")
    states = drawn_lines(terminal)
    if not check(len(states) >= 2, f"{name}: terminal got {terminal!r}"):
        return
    drawn = []
    for state in states[:-1]:
        m = PROGRESS.match(state)
        if check(m is not None, f"{name}: not a progress line: {state!r}"):
            check(m.group(1) == name, f"{name}: line names {m.group(1)}")
            check(m.group(4) is not None, f"{name}: a file's share missing in {state!r}")
            drawn.append((int(m.group(2)), int(m.group(4) or -1)))
            # After a batch some of the file is done, so the time left can be estimated.
            check(m.group(5) is not None, f"{name}: no time left in {state!r}")
    check(drawn == expected_states(lines, batch_ends, size),
          f"{name}: drew {drawn}, expected {expected_states(lines, batch_ends, size)}")
    m = FINAL.match(states[-1])
    check(m is not None and int(m.group(2)) == len(lines), f"{name}: last line {states[-1]!r}")
    with open(input_path, "rb") as f:
        code, quiet_out, terminal = run_on_terminal(cmd + ["--no-progress"], f)
    check(code == 0 and quiet_out == plain_out, f"{name} --no-progress: exit {code}, stdout differs")
    check(terminal == "", f"{name} --no-progress: terminal got {terminal!r}")
    with open(input_path, "rb") as f:
        code, quiet_out, quiet_err = run_plain(cmd + ["--no-progress"], f)
    check(code == 0 and quiet_out == plain_out and quiet_err == b"",
          f"{name} --no-progress, stderr a pipe: exit {code}, stderr {quiet_err[:200]!r}")


def check_pipe(name, cmd, input_path, count):
    """stdin a pipe: lines and lines/s only, and the totals."""
    with open(input_path, "rb") as f:
        data = f.read()
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, data), os.close(w)))
    writer.start()
    code, out, terminal = run_on_terminal(cmd, r)
    writer.join()
    os.close(r)
    states = drawn_lines(terminal)
    check(code == 0 and len(out.splitlines()) == count, f"{name} from a pipe: exit {code}")
    for state in states[:-1]:
        m = PROGRESS.match(state)
        check(m is not None and m.group(4) is None, f"{name} from a pipe: {state!r}")
    m = FINAL.match(states[-1]) if states else None
    check(m is not None and int(m.group(2)) == count, f"{name} from a pipe: last line {states[-1:]!r}")


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in lines))


def convert(heed, source, output, extra=()):
    """heed convert with stderr on a terminal: the quantizing bar reaches 100 % with its total."""
    code, _, terminal = run_on_terminal(heed + ["convert", source, "-o", output, *extra], subprocess.DEVNULL)
    if code != 0:
        print("heed convert failed:", terminal, file=sys.stderr)
        sys.exit(1)
    bars = [s for s in drawn_lines(terminal) if s.startswith("heed convert: quantizing [")]
    last = re.search(r"100% \((\d+)/(\d+)\)$", bars[-1]) if bars else None
    check(last is not None and last.group(1) == last.group(2),
          f"convert {source}: quantizing bar {bars[-1:]!r}")


def main():
    emulator, heed_path, source_dir, work = sys.argv[1:5]
    heed = shlex.split(emulator) + [heed_path]
    os.makedirs(work, exist_ok=True)
    sys.path.insert(0, os.path.join(source_dir, "scripts", "demo"))
    import number_words

    demo = os.path.join(work, "demo.heed")
    convert(heed, os.path.join(source_dir, "demo", "numbers-en-de"), demo, ["--quantize", "int8"])
    numbers = [number_words.english(n) for n in range(1, 300 * 3331, 3331)]  # 300 lines
    path = os.path.join(work, "numbers.txt")
    write_lines(path, numbers)
    # --batch 16 --read-ahead 8 (the defaults): windows of 128 lines from a file.
    check_command("translate", heed + ["translate", "-m", demo, "--tokens", "--beam", "1"], path, numbers,
                  [128, 256, 300])
    check_pipe("translate", heed + ["translate", "-m", demo, "--tokens", "--beam", "1"], path, len(numbers))

    bert = os.path.join(work, "bert.heed")
    convert(heed, os.path.join(source_dir, "tests", "fixtures", "hf-bert", "model"), bert)
    sentences = [f"sentence number {number_words.english(n)} of the test" for n in range(50)]
    path = os.path.join(work, "sentences.txt")
    write_lines(path, sentences)
    check_command("embed", heed + ["embed", "-m", bert, "--batch", "8"], path, sentences, list(range(8, 50, 8)) + [50])

    gpt2 = os.path.join(work, "gpt2.heed")
    convert(heed, os.path.join(source_dir, "tests", "fixtures", "hf-gpt2"), gpt2)
    prompts = [f"Once upon a time {number_words.english(n)}" for n in range(20)]
    path = os.path.join(work, "prompts.txt")
    write_lines(path, prompts)
    check_command("generate", heed + ["generate", "-m", gpt2, "--batch", "8", "--max-len", "4", "--ids"], path,
                  prompts, [8, 16, 20])

    # BERT's task heads read lines through the same loop as embed (encoder_command.h).
    fixture = os.path.join(source_dir, "tests", "fixtures", "hf-bert")
    for command, folder, text, extra in (("classify", "classifier", "classify.txt", []),
                                         ("fill-mask", "mlm", "fill_mask.txt", ["--top-k", "3"])):
        model = os.path.join(work, folder + ".heed")
        convert(heed, os.path.join(fixture, folder), model)
        with open(os.path.join(fixture, text), encoding="utf-8") as f:
            lines = f.read().splitlines()
        path = os.path.join(work, text)
        write_lines(path, lines)
        ends = list(range(4, len(lines), 4)) + [len(lines)]
        check_command(command, heed + [command, "-m", model, "--batch", "4", *extra], path, lines, ends)

    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("progress lines as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
