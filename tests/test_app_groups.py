"""The Groups page (AppTest): its link. (Groups of queries by metadata: test_app_metadata.py.)"""

from apptest import address_params, linked


def test_a_groups_link_restores_grouping_measure_group_and_systems():
    at = linked("pages/groups.py", dataset="versions", measures="AP,P@10", group_by="R_q",
                measure="P@10", group="5", systems=["cqt_net", "transformer"])
    assert not at.exception and not at.error and not at.warning
    assert at.selectbox(key="group_measure").value == "P@10"
    assert at.selectbox(key="group_open_box").value == "5"
    assert any(b.label == "Open the 12 queries" for b in at.button)
    params = address_params(at)
    assert (params["group_by"], params["measure"], params["group"], params["systems"]) == \
        (["R_q"], ["P@10"], ["5"], ["cqt_net", "transformer"])
