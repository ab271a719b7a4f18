"""The documents stay true: every generated document and section is what docs/generate.py writes
now, docs/measures.md leads from each measure to its code and its tests, the README stays short,
every relative link leads to a file, and every module path the documents name exists."""

import importlib
import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *DOCS]


def _generator():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()


def _ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


# ---- (a), (b): generated documents and sections are current -------------------------------------

@pytest.mark.parametrize("generated", GENERATOR.GENERATED, ids=lambda g: g.label)
def test_every_generated_document_is_current(generated):
    actual = (ROOT / generated.path).read_text(encoding="utf-8")
    expected = GENERATOR.expected_text(generated, actual)
    assert actual == expected, (f"{generated.label} is out of date with its source: run "
                                f"`python docs/generate.py` and commit {generated.path}")


def test_a_section_without_its_markers_is_an_error_not_a_silent_pass():
    ties = next(g for g in GENERATOR.GENERATED if g.section == "ties")
    with pytest.raises(ValueError, match="markers of section 'ties'"):
        GENERATOR.expected_text(ties, "# Conventions\n\n| policy | order |\n")


def test_the_tie_table_says_what_each_policy_does():
    from metrics.data.ties import TiePolicy

    text = (ROOT / "docs" / "conventions.md").read_text(encoding="utf-8")
    for policy in TiePolicy:
        assert f"| `{policy}`" in text, policy
    assert "| `stable` (default) | input order" in text
    assert "`trec`, its former name, is still accepted |" in text


def test_measures_md_lists_every_measure_and_alias():
    import metrics.measures  # noqa: F401  (registers every family)
    from metrics.measures.aliases import alias_rows
    from metrics.measures.registry import REGISTRY, measure_syntax

    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    for name, definition in REGISTRY.items():
        assert f"### {name}\n" in text, name
        assert f"`{measure_syntax(name)}`" in text, name
        module = definition.compute.__module__
        section = text[text.index(f"`{module}`. "):]
        assert f"### {name}\n" in section, f"{name} is not under its family {module}"
    for row in alias_rows():
        assert f"| `{row['alias']}` |" in text, row["alias"]


def _measure_sections(text: str) -> dict[str, str]:
    """Each ``### Name`` entry of docs/measures.md, up to the next heading."""
    parts = re.split(r"^### (\S+)\n", text, flags=re.M)
    return {name: re.split(r"^#", body, flags=re.M)[0]
            for name, body in zip(parts[1::2], parts[2::2])}


def test_measures_md_names_each_measures_function_and_tests():
    """Name → code → test in one hop: each entry names the function that computes the measure
    (which must be where the registry's function is defined) and its family's test module with
    the tests defined there under the measure's name."""
    import ast

    import metrics.measures  # noqa: F401
    from metrics.measures.registry import REGISTRY

    sections = _measure_sections((ROOT / "docs" / "measures.md").read_text(encoding="utf-8"))
    for name, definition in REGISTRY.items():
        entry = sections[name]
        code = re.search(r"- \*\*Code:\*\* \[`([\w.]+)`\]\(\.\./([\w/]+\.py)\)", entry)
        assert code, f"{name}: no Code line"
        dotted, path = code.groups()
        module, function = dotted.rsplit(".", 1)
        assert module == definition.compute.__module__, name
        assert path == module.replace(".", "/") + ".py", name
        assert re.search(rf"^def {re.escape(function)}\(", (ROOT / path).read_text(), re.M), \
            f"{name}: {function} is not a function of {path}"
        tests = re.search(r"- \*\*Tests:\*\* \[`(tests/test_measures_\w+\.py)`\]\(\.\./\1\): "
                          r"(.+)", entry)
        assert tests, f"{name}: no Tests line"
        test_file, listed = tests.groups()
        assert test_file == f"tests/test_measures_{module.rsplit('.', 1)[-1]}.py", name
        defined = {node.name for node in ast.parse((ROOT / test_file).read_text()).body
                   if isinstance(node, ast.FunctionDef)}
        names = re.findall(r"`(test_\w+)`", listed)
        assert names, f"{name}: no test listed"
        assert set(names) <= defined, f"{name}: {set(names) - defined} not in {test_file}"


# ---- the public API: numpydoc sections and examples that run ----------------------------------

def _public_api():
    """``evaluate``, ``judge`` and every loader of :mod:`metrics.loaders` (its ``load_*`` and
    ``open_*``), by name."""
    import metrics.loaders

    return ["evaluate", "judge", *(n for n in metrics.loaders.__all__
                                   if n.startswith(("load_", "open_")))]


@pytest.mark.parametrize("name", _public_api())
def test_the_public_api_says_parameters_returns_and_examples_that_run(name, monkeypatch):
    import doctest
    import io

    import metrics
    import metrics.loaders

    function = getattr(metrics, name, None) or getattr(metrics.loaders, name)
    doc = inspect.getdoc(function)
    for heading in ("Parameters", "Returns", "Examples"):
        assert f"\n{heading}\n{'-' * len(heading)}\n" in doc, f"{name}: no {heading} section"
    parameters = doc.split("\nParameters\n", 1)[1].split("\nReturns\n", 1)[0]
    documented = {n for line in re.findall(r"^(\w[\w, ]*) : ", parameters, flags=re.M)
                  for n in line.split(", ")}
    assert set(inspect.signature(function).parameters) == documented, name
    monkeypatch.chdir(ROOT)                     # the examples read sample_data/
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder(recurse=False).find(function, name, globs={}):
        runner.run(test, out=out.write)
    assert runner.tries >= 1, f"{name} has no example"
    assert runner.failures == 0, out.getvalue()


# ---- (c): a short README, and links that lead somewhere ----------------------------------------

def test_readme_is_short():
    size = len(README.read_bytes())
    assert size < 15_000, f"README.md is {size} bytes; move reference material into docs/"


def test_readme_keeps_the_test_command_and_the_warnings():
    text = README.read_text(encoding="utf-8")
    for needed in ("pip install -e . && streamlit run app.py", "bash .ci/run", "python -m pytest",
                   ".ci/constraints.txt", ".ci/refresh-constraints", "never `pip install metrics`"):
        assert needed in text, needed


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _relative_links(path: Path):
    """(file, anchor) of every link that is not a URL; file is "" for the page's own anchors."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)          # code blocks hold no links
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue                                           # https:, mailto:
        file, _, anchor = target.partition("#")
        yield file, anchor


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("path", DOCUMENTS, ids=_ids(DOCUMENTS))
def test_relative_links_lead_to_files(path):
    missing, no_anchor = [], []
    for file, anchor in _relative_links(path):
        target = path.parent / file if file else path
        if not target.exists():
            missing.append(file)
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            no_anchor.append(f"{file}#{anchor}")
    assert not missing, f"{path.relative_to(ROOT)} links to missing files: {missing}"
    assert not no_anchor, f"{path.relative_to(ROOT)} links to missing headings: {no_anchor}"


# ---- (d): no stale module path -----------------------------------------------------------------

DOTTED = re.compile(r"(?<![\w/.-])metrics(?:\.[A-Za-z_]\w*)+")
FOLDERS = r"(?:metrics|dashboard|pages|charts|benchmarks|tests|sample_data|docs|\.ci|\.streamlit)"
FILE_PATH = re.compile(rf"(?<![\w/.-]){FOLDERS}/[\w./-]*[\w]")


def _is_module_here(parts) -> bool:
    """Whether ``metrics.a.b`` is a module of this tree (found on disk: the import system could
    find a copy of the package installed elsewhere)."""
    base = ROOT.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _resolves(dotted: str) -> bool:
    """``metrics.a.b.name`` names a module of this tree, or an attribute of the longest module
    prefix that is one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        if not _is_module_here(parts[:cut]):
            continue
        obj = importlib.import_module(".".join(parts[:cut]))
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute, None)
            if obj is None or (inspect.ismodule(obj)
                               and not Path(obj.__file__).resolve().is_relative_to(ROOT)):
                return False
        return True
    return False


@pytest.mark.parametrize("path", DOCUMENTS, ids=_ids(DOCUMENTS))
def test_module_paths_are_not_stale(path):
    text = path.read_text(encoding="utf-8")
    stale = sorted({m for m in DOTTED.findall(text) if not _resolves(m)})
    assert not stale, f"{path.relative_to(ROOT)} names modules that do not exist: {stale}"
    missing = sorted({p for p in FILE_PATH.findall(text) if not (ROOT / p).exists()})
    assert not missing, f"{path.relative_to(ROOT)} names files that do not exist: {missing}"


@pytest.mark.parametrize("path", DOCUMENTS, ids=_ids(DOCUMENTS))
def test_no_reference_to_documents_outside_the_repository(path):
    """The specification and the seed documents are not in the repository: the documents cite
    the published sources instead (FMP C7S3, Serrà 2007, the instrument-retrieval task, the
    text-to-music tutorial)."""
    text = path.read_text(encoding="utf-8")
    found = sorted(set(re.findall(r"SPEC §\d*|\bseeds? \d{3}", text)))
    assert not found, f"{path.relative_to(ROOT)} cites documents not in the repository: {found}"


# ---- (e): BENCHMARKS.md says what is true now, in the shape its writer writes ------------------

def _benchmark_report():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return report


def test_benchmarks_md_is_one_table_per_workload_in_its_writers_shape():
    """BENCHMARKS.md reads back as benchmarks/report.py writes it: the runs, the targets and each
    workload's section once, each section citing a listed run; then the scale notes."""
    report = _benchmark_report()
    text = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    page = report.read_page(text)
    notes = (ROOT / "benchmarks" / "scale_notes.md").read_text(encoding="utf-8")
    assert page.text() + "\n" + notes == text
    headings = re.findall(r"^## .+$", text, flags=re.M)
    assert len(headings) == len(set(headings)), "a workload has two sections"
    for heading, lines in page.sections.items():
        cited = re.search(r"^\*Run (\d+)\*", "\n".join(lines), flags=re.M)
        assert cited and int(cited.group(1)) in page.runs, heading
    for row in page.targets.values():
        assert int(report._cells(row)[-1]) in page.runs, row


def test_an_update_replaces_only_the_workloads_run(monkeypatch):
    report = _benchmark_report()
    before = report.read_page((ROOT / "BENCHMARKS.md").read_text(encoding="utf-8"))
    w4 = next(h for h in before.sections if h.startswith("## W4 "))
    w4_targets = [key for key in before.targets if key[0] == "W4"]
    monkeypatch.setattr(report, "_machine", lambda: ("a machine", "versions", "`abc1234`"))
    monkeypatch.setattr(report, "TARGETS", [("W4", w4_targets[0][1], "0.11×", "yes")])
    new = [w4, "", "| tool | whole process (s) |", "| --- | --- |", "| ours | 0.50 |", ""]
    after = report.read_page(report.write_report([new], "run_benchmarks.py --only W4 --update",
                                                 before.text()))
    run = max(before.runs) + 1
    assert "`abc1234`" in after.runs[run] and "--only W4 --update" in after.runs[run]
    assert after.sections[w4][:3] == [w4, "", f"*Run {run}* (see Runs)."]
    assert "| ours | 0.50 |" in after.sections[w4]
    assert list(after.sections) == list(before.sections)          # same place, same order
    for heading in before.sections:
        if heading != w4:
            assert after.sections[heading] == before.sections[heading], heading
    assert after.targets[w4_targets[0]] == f"| W4 | {w4_targets[0][1]} | 0.11× | yes | {run} |"
    for key in before.targets:
        if key != w4_targets[0]:
            assert after.targets[key] == before.targets[key], key
