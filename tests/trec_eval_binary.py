"""The oracle of the trec_eval tests: the trec_eval 10.0 binary, built once per test session from
the source kept in tests/trec_eval_source (CI has no network beyond the package registries).

It is compiled with the C compiler that builds the package's own C parts at install (setup.py),
from the source files its Makefile names, with the Makefile's VERSIONID and its flags: no
optimisation, as trec_eval's own reference outputs (test/out.*) were made — its m_rbp.c compares
gains with a minimum and maximum it never sets, so what rbp prints depends on the build, and only
the Makefile's agrees with the reference outputs. The benchmark's peer is built with -O2
(``optimise``), a release build's speed, and is not an oracle. Without a compiler the
tests that need it fail under CI (``CI`` set, as .ci/run sets it) and are skipped elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent / "trec_eval_source"


def compiler() -> str | None:
    """The C compiler: $CC, Python's own (sysconfig), cc or gcc, the first found."""
    for candidate in (os.environ.get("CC"), (sysconfig.get_config_var("CC") or "").split()[:1],
                      "cc", "gcc"):
        if isinstance(candidate, list):
            candidate = candidate[0] if candidate else None
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def build(directory: Path, optimise: bool = False) -> Path:
    """Compile trec_eval into ``directory``, as its Makefile does or with -O2 (``optimise``);
    the binary's path (RuntimeError when it cannot)."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc, gcc or $CC) to build trec_eval with")
    makefile = (SOURCE / "Makefile").read_text()
    version = re.search(r"^VERSIONID\s*=\s*(\S+)", makefile, re.MULTILINE).group(1)
    listed = set(re.findall(r"[\w.]+\.c\b", makefile))   # m_ndcg_p.c is in the folder, not built
    sources = sorted(str(p) for p in SOURCE.glob("*.c") if p.name in listed)
    binary = directory / "trec_eval"
    flags = ["-O2"] if optimise else ["-g"]
    done = subprocess.run([cc, *flags, "-w", f"-I{SOURCE}", f'-DVERSIONID="{version}"', "-o",
                           str(binary), *sources, "-lm"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building trec_eval failed: {done.stderr.strip()[-2000:]}")
    (directory / "SOURCE_COMMIT").write_text((SOURCE / "SOURCE_COMMIT").read_text())
    return binary


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory) -> Path:
    """The path of the trec_eval 10.0 binary built for this session."""
    try:
        return build(tmp_path_factory.mktemp("trec_eval"))
    except RuntimeError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"the trec_eval oracle cannot be built under CI: {exc}")
        pytest.skip(f"the trec_eval oracle cannot be built here: {exc}")
