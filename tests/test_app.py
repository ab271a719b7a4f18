"""Page logic with streamlit.testing.v1.AppTest."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from metrics.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[1]


def run_app(**state):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


@pytest.mark.parametrize("sample", list(SAMPLES))
def test_overview_renders_every_sample(sample):
    at = run_app(sample=sample)
    assert not at.exception
    assert not at.error
    table = at.dataframe[0].value
    assert list(table.columns)[:3] == ["system", "AP", "P@10"]
    assert len(table) >= 1


def test_fmp_aggregate_is_the_mean_of_the_two_toys():
    at = run_app(sample="fmp", measures="AP,BEP")
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["fmp", "AP"] == pytest.approx((0.8125 + 0.6083333333) / 2)
    assert table.loc["fmp", "BEP"] == pytest.approx((0.75 + 0.5) / 2)


def test_bad_measure_shows_an_error_not_a_traceback():
    at = run_app(measures="AP,Nope@3")
    assert not at.exception
    assert "unknown measure 'Nope'" in at.error[0].value
