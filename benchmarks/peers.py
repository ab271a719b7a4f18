"""The peers, on TREC runs: the jobs that time pytrec_eval, ranx and ir_measures in a process of
their own, and the trec_eval binary (found, asked for its measures, its output read)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

TREC_MEASURES = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10",
                 "bpref": "Bpref", "Rprec": "Rprec"}
RANX_MEASURES = {"map": "AP", "precision@10": "P@10", "mrr": "RR", "ndcg@10": "nDCG@10",
                 "bpref": "Bpref", "r-precision": "Rprec"}
IRM_MEASURES = {"AP": "AP", "P@10": "P@10", "RR": "RR", "nDCG@10": "nDCG@10", "Bpref": "Bpref",
                "Rprec": "Rprec"}


def job_pytrec(run, qrels, out, measures=",".join(TREC_MEASURES)):
    """pytrec_eval on a run; ``measures`` are trec_eval names (keys of TREC_MEASURES); per-query
    values are written to ``out`` under our names ("-": not written)."""
    names = measures.split(",")
    t0 = time.perf_counter()
    import pytrec_eval
    t1 = time.perf_counter()
    with open(run) as f:
        parsed_run = pytrec_eval.parse_run(f)
    with open(qrels) as f:
        parsed_qrels = pytrec_eval.parse_qrel(f)
    t2 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(parsed_qrels, set(names))
    result = evaluator.evaluate(parsed_run)
    t3 = time.perf_counter()
    if out != "-":
        Path(out).write_text(json.dumps({q: {TREC_MEASURES[m]: v[m] for m in names}
                                         for q, v in result.items()}))
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2}


def job_ranx(run, qrels, out):
    t0 = time.perf_counter()
    from ranx import Qrels, Run, evaluate
    t1 = time.perf_counter()
    r = Run.from_file(run, kind="trec")
    q = Qrels.from_file(qrels, kind="trec")
    t2 = time.perf_counter()
    evaluate(q, r, list(RANX_MEASURES), make_comparable=True)
    t3 = time.perf_counter()
    evaluate(q, r, list(RANX_MEASURES), make_comparable=True)   # the same, now compiled
    t4 = time.perf_counter()
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2, "evaluate_again": t4 - t3}


def job_ir_measures(run, qrels, out):
    t0 = time.perf_counter()
    import ir_measures
    t1 = time.perf_counter()
    r = list(ir_measures.read_trec_run(run))
    q = list(ir_measures.read_trec_qrels(qrels))
    t2 = time.perf_counter()
    ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in IRM_MEASURES], q, r)
    t3 = time.perf_counter()
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2}


# ---- the trec_eval binary ------------------------------------------------------------------------

TREC_EVAL: dict = {"path": None, "note": ""}
BINARY_MEASURES = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10",
                   "bpref": "Bpref", "Rprec": "Rprec"}


def find_trec_eval(option: str | None) -> None:
    """--trec-eval PATH, else $TREC_EVAL, else trec_eval on PATH, else trec_eval 10.0 built from
    tests/trec_eval_source (as the tests build it); notes why the peer is skipped."""
    candidate = option or os.environ.get("TREC_EVAL") or shutil.which("trec_eval") or \
        _built_trec_eval()
    if not candidate or not (Path(candidate).is_file() and os.access(candidate, os.X_OK)):
        looked = candidate or "give --trec-eval PATH or set TREC_EVAL"
        TREC_EVAL.update(path=None,
                         note=f"trec_eval binary not found ({looked}): that peer is skipped")
        print("note: " + TREC_EVAL["note"], flush=True)
        return
    done = subprocess.run([candidate, "-v"], capture_output=True, text=True)
    version = (done.stdout + done.stderr).strip().splitlines()
    source = Path(candidate).resolve().parent / "SOURCE_COMMIT"
    commit = f", source commit {source.read_text().strip()[:12]}" if source.exists() else ""
    TREC_EVAL.update(path=str(Path(candidate).resolve()),
                     note=f"{version[0] if version else 'trec_eval'} at "
                          f"{Path(candidate).resolve()}{commit}")


def _built_trec_eval() -> str | None:
    """trec_eval built from the vendored source into a temporary folder (None without a
    compiler)."""
    import importlib.util
    import tempfile
    path = Path(__file__).resolve().parents[1] / "tests" / "trec_eval_binary.py"
    spec = importlib.util.spec_from_file_location("trec_eval_binary", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        return str(module.build(Path(tempfile.mkdtemp(prefix="trec_eval_")), optimise=True))
    except RuntimeError as exc:
        print(f"note: {exc}", flush=True)
        return None


def trec_eval_args(run, qrels, measures, per_query=False) -> list[str]:
    """trec_eval's -m names: P_10 is asked for as P.10, ndcg_cut_10 as ndcg_cut.10."""
    flags = []
    for m in measures:
        flags += ["-m", m.replace("P_", "P.").replace("cut_", "cut.")]
    return [TREC_EVAL["path"], *(["-q"] if per_query else []), *flags, str(qrels), str(run)]


def read_trec_eval(path) -> dict:
    values: dict = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "all" and parts[0] in BINARY_MEASURES:
            values.setdefault(parts[1], {})[BINARY_MEASURES[parts[0]]] = float(parts[2])
    return values
