"""A query-table column that bears a derived property's name (issue 42, item 4) is never taken
for the property, nor the property for it: each is named by its kind (column:R_q, derived:R_q)
and the bare name, which could mean either, is refused, in the command line and on the Groups
page alike. And an unknown name's message stays one short line however wide the table (item 17).
"""

import pandas as pd
import pytest

from metrics import GroundTruth, Run, judge
from metrics.cli import main
from metrics.errors import InputError
from metrics.evaluation.groups import grouping, grouping_names

# q1 has two relevant items, q2 and q3 one each: R_q groups {q2, q3} and {q1}. The query
# table's own R_q column says something else: q2 "high", q1 and q3 "low".
RUN = {q: {"d1": 3.0, "d2": 2.0, "d5": 1.0} for q in ("q1", "q2", "q3")}
QRELS = {"q1": {"d2": 1, "d9": 1}, "q2": {"d1": 1}, "q3": {"d5": 1}}
QUERY_TABLE = "query_id,R_q,genre\nq1,low,rock\nq2,high,jazz\nq3,low,rock\n"


@pytest.fixture
def judged():
    return judge(Run.from_dict(RUN), GroundTruth.from_dict(QRELS))


@pytest.fixture
def queries():
    return pd.DataFrame({"R_q": ["low", "high", "low"], "genre": ["rock", "jazz", "rock"]},
                        index=pd.Index(["q1", "q2", "q3"], name="query_id"))


def members(groups) -> dict[str, list[str]]:
    return {g: [q for q, label in zip(("q1", "q2", "q3"), groups.labels) if label == g]
            for g in groups.groups}


def test_the_bare_shared_name_is_refused_naming_both(judged, queries):
    with pytest.raises(InputError) as error:
        grouping("R_q", judged, queries)
    assert "column:R_q" in str(error.value) and "derived:R_q" in str(error.value)


def test_each_kind_is_grouped_by_under_its_own_name(judged, queries):
    column = grouping("column:R_q", judged, queries)
    assert members(column) == {"high": ["q2"], "low": ["q1", "q3"]}
    derived = grouping("derived:R_q", judged, queries)
    assert members(derived) == {"1": ["q2", "q3"], "2": ["q1"]}
    assert (column.name, derived.name) == ("column:R_q", "derived:R_q")   # the output says which
    # without a column of that name, the bare name is the derived property, as before
    assert members(grouping("R_q", judged, queries[["genre"]])) == members(derived)


def test_the_names_offered_name_the_kind_only_where_they_are_shared():
    assert grouping_names(["genre", "R_q", "tie_share"], ["R_q", "clique_size"]) == \
        ["genre", "column:R_q", "column:tie_share", "derived:R_q", "clique_size"]


def test_the_command_line_refuses_the_bare_name_and_prints_each_kind(tmp_path, capsys):
    run = tmp_path / "a.run"
    run.write_text("".join(f"{q} Q0 {d} 1 {s} a\n" for q, items in RUN.items()
                           for d, s in items.items()))
    qrels = tmp_path / "t.qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, items in QRELS.items()
                             for d, g in items.items()))
    table = tmp_path / "queries.csv"
    table.write_text(QUERY_TABLE)
    common = ["evaluate", str(run), str(qrels), "-m", "AP", "--query-metadata", str(table),
              "--format", "json"]
    assert main([*common, "--group-by", "R_q"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "column:R_q" in err and "derived:R_q" in err
    assert main([*common, "--group-by", "column:R_q", "--group-by", "derived:R_q"]) == 0
    groups = __import__("json").loads(capsys.readouterr()[0])["groups"]
    assert {g: v["num_queries"] for g, v in groups["column:R_q"].items()} == {"high": 1, "low": 2}
    assert {g: v["num_queries"] for g, v in groups["derived:R_q"].items()} == {"1": 2, "2": 1}


def test_an_unknown_name_in_a_wide_table_names_the_closest_few_and_the_count(judged):
    wide = pd.DataFrame([[str(i) for i in range(20_000)]] * 3,
                        columns=[f"col{i}" for i in range(20_000)],
                        index=pd.Index(["q1", "q2", "q3"], name="query_id"))
    with pytest.raises(InputError) as error:
        grouping("col1999x", judged, wide)
    message = str(error.value)
    assert "20,000 columns" in message and "col1999" in message and len(message) < 400, \
        message[:500]


def test_the_groups_page_offers_each_kind_and_groups_by_the_one_chosen():
    from apptest import app, grid_data
    from dashboard.settings import DataSource

    run = "".join(f"{q} Q0 {d} 1 {s} a\n" for q, items in RUN.items()
                  for d, s in items.items()).encode()
    qrels = "".join(f"{q} 0 {d} {g}\n" for q, items in QRELS.items()
                    for d, g in items.items()).encode()
    upload = DataSource.of_upload("runs+qrels", (
        ("runs", "a.run", run), ("qrels", "q.qrels", qrels),
        ("queries", "queries.csv", QUERY_TABLE.encode())))
    at = app("pages/groups.py", upload=upload, sample="upload", measures="AP",
             group_by="derived:R_q")
    assert not at.exception and not at.error, [e.value for e in at.error]
    box = at.selectbox(key="group_by_box")
    assert {"R_q (query table)", "R_q (derived)"} <= set(box.options), box.options
    table = grid_data(at.main.dataframe[0])
    assert dict(zip(table["derived:R_q"].astype(str), table["queries"])) == {"1": 2, "2": 1}
