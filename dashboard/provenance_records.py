"""The provenance records that lead the pages' CSV downloads (dashboard/tables.py writes them):
what data, measures, tie policy and options a table was computed from."""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from dashboard.settings import DataSource, source, tie_policy
from metrics.measures.names import Measure


@st.cache_data(show_spinner=False, max_entries=16)
def source_inputs(src: DataSource) -> list[dict]:
    """The provenance record's input files of a source: a sample's files, hashed (streamed), or
    an upload's names and SHA-256 (which the source already holds)."""
    from metrics.evaluation import provenance
    from metrics.explain.samples import SAMPLE_DIR

    if src.is_sample:
        folder = SAMPLE_DIR / src.sample
        files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
        return provenance.input_files(("sample", p) for p in files)
    # an upload's file is (role, name, sha256 of its content), or the content itself
    return [{"role": role, "name": name, **({"bytes": len(content),
                                             "sha256": hashlib.sha256(content).hexdigest()}
                                            if isinstance(content, bytes) else
                                            {"sha256": content})}
            for role, name, content in src.files]


def provenance_record(measures: list[Measure] | None = None, protocol: str | None = None,
                      seed: int | None = None, ci: dict | None = None,
                      warnings=()) -> dict:
    """The provenance record of what the current page shows, for its CSV downloads."""
    from metrics.evaluation import provenance

    src = source()
    options = src.upload_options()
    if src.judgments:   # the qrels grown by the stored judgments (dashboard/judging.py)
        listed = "".join(f"{q}\t{i}\t{g}\n" for q, i, g in src.judgments).encode()
        options = {**options, "judgments": {"applied": len(src.judgments),
                                            "sha256": hashlib.sha256(listed).hexdigest()}}
    return provenance.record(command="dashboard", inputs=source_inputs(src), measures=measures,
                             protocol=protocol, ties=tie_policy(), options=options, seed=seed,
                             ci=ci, warnings=warnings)


def answer_sets_provenance(answer_sets: pd.DataFrame, length: int, size: int) -> dict:
    """The provenance record of the Answer sets page's tables. That page has data of its own
    (the sidebar's dataset plays no part): its answer sets as edited there (hashed as CSV),
    Table 2's measures, |A| and |D|. The answer sets give ranks, not scores: nothing to tie."""
    from metrics.evaluation import provenance
    from metrics.explain.answer_sets import TABLE2_MEASURES
    from metrics.measures.names import parse_measure

    text = answer_sets.to_csv(index=False).encode()
    inputs = [{"role": "answer_sets", "name": "the answer sets as edited on the page",
               "rows": len(answer_sets), "bytes": len(text),
               "sha256": hashlib.sha256(text).hexdigest()}]
    measures = [parse_measure(m) for m in dict.fromkeys(TABLE2_MEASURES.values())]
    return provenance.record(command="dashboard", inputs=inputs, measures=measures,
                             ties=None,
                             options={"answer_set_length": length, "collection_size": size})
