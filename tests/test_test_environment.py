"""The locked test environment: .ci/run installs from .ci/constraints.txt, whose pins cover every
dependency pyproject.toml names and satisfy its bounds (so a refresh that breaks a bound, or a new
dependency left unpinned, fails here rather than on a fresh machine)."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / ".ci" / "constraints.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)$")


def pins() -> dict[str, Version]:
    pinned: dict[str, Version] = {}
    for number, line in enumerate(CONSTRAINTS.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"{CONSTRAINTS.name} line {number} is not 'name==version': {line!r}"
        name = canonicalize_name(match[1])
        assert name not in pinned, f"{CONSTRAINTS.name} line {number} pins {name} twice"
        pinned[name] = Version(match[2])
    return pinned


def declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_every_dependency_is_pinned_within_its_bounds():
    pinned = pins()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{requirement.name} is a dependency but {CONSTRAINTS.name} has no pin"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{CONSTRAINTS.name} pins {name}=={pinned[name]}, outside pyproject's "
            f"'{requirement.specifier}'")


def test_extras_of_dependencies_are_pinned_too():
    pinned = pins()
    # dask[distributed] brings distributed: a floating one could change the cluster tests.
    assert "distributed" in pinned
    assert pinned["distributed"] == pinned["dask"], "dask and distributed are released in step"


def test_ci_installs_with_the_constraints():
    run = (ROOT / ".ci" / "run").read_text()
    install = [line for line in run.splitlines() if "pip install" in line and "-e" in line]
    assert install and all("-c .ci/constraints.txt" in line for line in install), install
