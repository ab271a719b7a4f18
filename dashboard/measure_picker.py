"""A measure picker built from the registry, beside the sidebar's free-text measures box: each
measure with its meaning, convention and reference, added to the box with its cutoff; and the
names from trec_eval and papers that the box also accepts."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.safe import md
from metrics.measures.registry import REGISTRY, measure_syntax
from metrics.measures.aliases import alias_rows
from metrics.measures.names import split_measure_list


def _add(name: str) -> None:
    """Button callback: the picked measure (with its cutoff) at the end of the measures box."""
    d = REGISTRY[name]
    if d.at == "recall":   # IPrec@r: a recall level, not a rank
        text = f"{name}@{float(st.session_state.get('picker_level', 0.5)):g}"
    else:
        cutoff = int(st.session_state.get("picker_cutoff") or 0)
        text = name + (f"@{cutoff}" if cutoff and d.cutoff != "none" else "")
    current = split_measure_list(st.session_state.get("measures", ""))
    if text not in current:
        st.session_state["measures"] = ",".join([*current, text])


def measure_picker() -> None:
    with st.popover("Pick a measure from the list", width="stretch"):
        name = st.selectbox("Measure", list(REGISTRY), key="picker_name",
                            format_func=lambda n: f"{n} — {REGISTRY[n].meaning}")
        d = REGISTRY[name]
        # the syntax in a code span, where Markdown is not read (nor a backslash escape)
        st.markdown(f"`{measure_syntax(name)}`  \n**Convention:** {md(d.convention)}  \n"
                    f"**Reference:** {md(d.reference)}"
                    + ("  \nNeeds the collection size |D|." if d.needs_collection_size else ""))
        if d.at == "recall":
            st.number_input("Recall level r", min_value=0.0, max_value=1.0, value=0.5,
                            step=0.1, key="picker_level")
        elif d.cutoff != "none":
            st.number_input("Cutoff k (0: the whole list)" if d.cutoff == "optional" else
                            "Cutoff k", min_value=0 if d.cutoff == "optional" else 1, value=10,
                            step=1, key="picker_cutoff")
        else:
            st.session_state["picker_cutoff"] = 0
        st.button("Add to the measures", on_click=_add, args=(name,), type="primary")
        st.caption("The box also takes trec_eval's names and the names papers use:")
        aliases = pd.DataFrame([{"name": a["alias"], "means": a["means"], "from": a["source"]}
                                for a in alias_rows()])
        st.dataframe(aliases, hide_index=True, height=220, width="stretch")
