"""What every page does with what people give it and what it gives back (AppTest, issue 29): a bad
file as a message, grades beyond 2^53, user text escaped wherever Markdown reads it, CSV downloads
no spreadsheet runs as a formula, and one rounding in every table and on the command line."""

import json
import re

import pandas as pd
import pytest

from apptest import PAGES, ROOT, app, grid_text, markdown_texts, query_box, upload_of
from dashboard.safe import md
from oracles import autolinks, provenance_of_csv


def test_bad_upload_shows_an_error():
    # AppTest cannot drive st.file_uploader: hand over what the upload callback stores
    candidate = upload_of({"bad.run": b"q1 Q0 d1 1 high s\n"}, b"q1 0 d1 1\n")
    for page in [p for p in PAGES if p != "pages/answer_sets.py"]:  # that page has its own data
        at = app(page, upload=candidate, sample="upload")
        assert not at.exception
        shown = [e.value.replace("\\", "") for e in at.error]   # as rendered: escapes dropped
        assert any("bad.run, line 1, column 'score': score 'high' is not a number" in text
                   for text in shown), page


@pytest.mark.parametrize("page", PAGES)
def test_grades_of_2_to_the_53_and_beyond_render_every_page(page):
    # a grade of 2^53 (which the docs allow) and of 2^62: the threshold box holds at most
    # 2^53 − 1, the largest integer a browser's numbers hold exactly (a larger bound ended every
    # page with StreamlitJSNumberBoundsError); a link's threshold of 2^62 gives way to it
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 6))
    qrels = f"q1 0 d1 {2**53}\nq1 0 d2 {2**62}\nq1 0 d3 1\n".encode()
    at = app(page, upload=upload_of({"mine.run": run}, qrels), sample="upload", threshold=2**62)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    if page != "pages/answer_sets.py":   # that page has data of its own, and no threshold
        box = at.sidebar.number_input(key="threshold_box")
        assert box.max == 2**53 - 1 and box.value == 2**53 - 1
        assert f"AP(rel={2**62})" in box.help          # how to ask for a higher threshold
    if page == "pages/data.py":           # the engine keeps the grade exact
        assert at.table[0].value.iloc[:, 0]["highest grade"] == str(2**62)


# file names (a name holds no "/": the browser would send only what follows it)
LINKS = ["![i](https:img.example) x", "[md](https:link.example) y"]


QUERY_LINK = "[q](https://q.example/)"


@pytest.mark.parametrize("page", [p for p in PAGES if p != "pages/answer_sets.py"])
def test_user_text_reaches_markdown_escaped_on_every_page(page):
    # file names (so system names), query ids and tie notices that are Markdown links and images
    runs = {f"{name}.run": b"".join(f"{q} Q0 d{i} {i} {5 - (i > 2)} s\n".encode()
                                    for q in (QUERY_LINK, "**b**") for i in range(1, 6))
            for name in LINKS}
    qrels = f"{QUERY_LINK} 0 d2 1\n**b** 0 d3 1\n**b** 0 d9 1\n".encode()
    at = app(page, upload=upload_of(runs, qrels), sample="upload", query=QUERY_LINK,
             system=LINKS[0], all_queries_open=True)
    assert not at.exception, at.exception
    texts = markdown_texts(at)
    unescaped = [t for t in texts if re.search(r"(?<!\\)\]\(", t)]
    assert not unescaped, unescaped               # no live link, no image request
    assert not [t for t in texts if "q.example" in "".join(autolinks(t))]   # nor an autolink
    joined = "\n".join(texts)
    if page == "pages/data.py":                   # the summary's header: each file's name
        assert all(md(name) in joined for name in LINKS), joined
    if page == "pages/compare.py":                # the button that opens the query
        assert md(QUERY_LINK) in joined


def test_csv_downloads_neutralise_formulas_and_keep_numbers():
    import csv
    import io

    from dashboard.tables import csv_bytes

    ids = ['=HYPERLINK("https://evil.example/","x")', "+SUM(1)", "-2+3", "@cmd", "-1", "q7"]
    frame = pd.DataFrame({"query_id": ids, "AP": [0.5, -0.25, 1.0, None, -3.0, 0.0],
                          "n": [1, -2, 3, 4, 5, 6], "grade": ["-1", "unjudged", "2", "=1", "",
                                                              "4"]})
    record = {"inputs": [{"name": "a,=cmd|' /C calc'!A0.run"}], "order": ["=1+1", "A2"]}
    text = csv_bytes(frame.rename(columns={"AP": "=AP"}), record).decode()
    rows = list(csv.reader(io.StringIO(text)))
    body = [row for row in rows if not row[0].startswith("# ")]
    assert body[0] == ["query_id", "'=AP", "n", "grade"]
    assert [row[0] for row in body[1:]] == ["'" + ids[0], "'+SUM(1)", "'-2+3", "'@cmd", "-1",
                                            "q7"]
    assert [row[1] for row in body[1:]] == ["0.5", "-0.25", "1.0", "", "-3.0", "0.0"]
    assert [row[2] for row in body[1:]] == ["1", "-2", "3", "4", "5", "6"]
    assert [row[3] for row in body[1:]] == ["-1", "unjudged", "2", "'=1", "", "4"]
    # the provenance lines: no cell a spreadsheet splits off at a comma starts a formula, and
    # the record reads back as it was
    for row in rows:
        if row[0].startswith("# "):
            assert not [cell for cell in row[1:] if cell.lstrip('"').startswith(("=", "+", "@"))]
    assert provenance_of_csv(text) == record


def test_every_download_is_written_by_the_one_csv_writer():
    sources = [*ROOT.glob("pages/*.py"), *ROOT.glob("dashboard/*.py"), ROOT / "app.py"]
    writers = [p.name for p in sources if "st.download_button(" in p.read_text()]
    assert writers == ["tables.py"]


def _browser_fixed(value: float, digits: int) -> str:
    """What a browser's ``Number.prototype.toFixed`` writes (ECMAScript: the n with n / 10^f − x
    closest to zero, the larger n on a tie), which the grid's "%.4f" format uses."""
    from fractions import Fraction

    exact = abs(Fraction(value)) * 10**digits
    n = int(exact + Fraction(1, 2))               # ties: the larger n
    text = f"{n // 10**digits}.{n % 10**digits:0{digits}d}"
    return ("-" if value < 0 else "") + text


def _cell_shown(element, row: int, column: str) -> str:
    """A cell as the browser shows it: a Styler's text, or the grid's printf format applied."""
    if element.proto.arrow_data.styler.display_values:
        return grid_text(element).iloc[row][column]
    digits = int(json.loads(element.proto.columns)[column]["type_config"]["format"][2:-1])
    return _browser_fixed(float(element.value.iloc[row][column]), digits)


def test_one_rounding_in_every_table_and_on_the_command_line(tmp_path):
    # P@32 of three queries: 21/32 = 0.65625, 16/32, 26/32; mean 63/96 = 0.65625. trec_eval
    # prints "%.4f": 0.65625 is a double exactly, and C rounds the tie to even: 0.6562
    import subprocess
    import sys

    relevant = {"q1": 21, "q2": 16, "q3": 26}
    run = "".join(f"{q} Q0 d{i} {i} {100 - i} s\n" for q in relevant for i in range(1, 33))
    qrels = "".join(f"{q} 0 d{i} 1\n" for q, n in relevant.items() for i in range(1, n + 1))
    (tmp_path / "mine.run").write_text(run)
    (tmp_path / "q.qrels").write_text(qrels)
    printed = subprocess.run([sys.executable, "-m", "metrics", "evaluate",
                              str(tmp_path / "mine.run"), str(tmp_path / "q.qrels"),
                              "--measures", "P@32", "--per-query"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "0.6562" in printed and "0.6563" not in printed, printed
    upload = upload_of({"mine.run": run.encode()}, qrels.encode())
    data = app("pages/data.py", upload=upload, sample="upload", measures="P@32",
               intervals_open=True)
    means = next(d for d in data.main.dataframe if "P@32" in d.value.columns)
    assert _cell_shown(means, 0, "P@32") == "0.6562"
    bounds = next(d for d in data.main.dataframe if "CI low" in d.value.columns)
    assert _cell_shown(bounds, 0, "mean") == "0.6562"
    explorer = app("pages/explorer.py", upload=upload, sample="upload", measures="P@32",
                   all_queries_open=True)
    per_query = next(d for d in explorer.main.dataframe if "query_id" in d.value.columns)
    row = per_query.value["query_id"].tolist().index("q1")
    assert _cell_shown(per_query, row, "P@32") == "0.6562"
    assert any(o.startswith("q1  (P@32 = 0.6562)") for o in query_box(explorer).options)
