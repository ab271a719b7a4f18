"""Oracles shared by several test files: computed by hand or from scipy, never by the code under
test."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd


def holm_by_hand(p):
    """Holm's step-down adjusted p-values: the i-th smallest times (m − i + 1), made monotone."""
    order = np.argsort(p)
    adjusted, running = np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def one_list_by_hand(ranked_grades, judged_grades, k: int, r: int, collection_size: int,
                     threshold: int = 1) -> dict[str, float]:
    """Every number the Query explorer shows of one ranked list, by brute force over the list:
    ``ranked_grades`` the grade at each rank (0 where unjudged), ``judged_grades`` the grades of
    every judged item of the query (R_q and the ideal DCG come from them), cutoff ``k``, the
    teaching mode's rank ``r`` and |D|. AP over the whole list / R_q, nDCG with linear gains and
    log2(rank + 1) discounts against the ideal order of the judged items (trec_eval's ndcg),
    BEP = P(R_q), F_max = max over r of F(r), the confusion counts of the top r."""
    rel = [g >= threshold for g in ranked_grades]
    r_q = sum(g >= threshold for g in judged_grades)

    def precision(n):
        return sum(rel[:n]) / n

    def recall(n):
        return sum(rel[:n]) / r_q

    def f(n):
        p, q = precision(n), recall(n)
        return 0.0 if p + q == 0 else 2 * p * q / (p + q)

    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(ranked_grades) if g > 0)
    ideal = sorted((g for g in judged_grades if g > 0), reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    tp = sum(rel[:r])
    return {"AP": sum(precision(i + 1) for i, x in enumerate(rel) if x) / r_q,
            f"P@{k}": precision(k), f"R@{k}": recall(k), "nDCG": dcg / idcg,
            "BEP": precision(r_q), "Fmax": max(f(n) for n in range(1, len(rel) + 1)),
            "χ(r)": float(rel[r - 1]), "TP(r)": float(tp), "P(r)": precision(r),
            "R(r)": recall(r), "F(r)": f(r),
            "TP": tp, "FP": r - tp, "FN": r_q - tp, "TN": collection_size - r - (r_q - tp)}


# ---- the cover-song sample (sample_data/covers), from its files ------------------------------

COVERS = Path(__file__).resolve().parents[1] / "sample_data" / "covers"


def covers_by_hand(system: str) -> pd.DataFrame:
    """Each query of the cover-song sample as ``system`` ranks it, from the sample's files: its
    list (its row of the similarity matrix, highest first, the query itself left out, equal
    scores in file order), its clique-mates (same label) and their ranks, and AP. One row per
    query, in file order, indexed by query id."""
    labels = pd.read_csv(COVERS / "labels.csv", dtype=str)
    ids, work = labels["item_id"].to_numpy(), labels["label"].to_numpy()
    scores = np.load(COVERS / f"{system}.npy")
    rows = []
    for q, query in enumerate(ids):
        listed = [ids[i] for i in np.argsort(-scores[q], kind="stable") if i != q]
        mates = [d for d in ids[work == work[q]] if d != query]
        ranks = sorted(listed.index(d) + 1 for d in mates)
        ap = (sum((i + 1) / r for i, r in enumerate(ranks)) / len(ranks)) if ranks else np.nan
        rows.append({"query": query, "list": listed, "mates": mates,
                     "rank": {d: listed.index(d) + 1 for d in mates}, "AP": ap,
                     "clique_size": len(mates) + 1})
    return pd.DataFrame(rows).set_index("query")


def covers_items() -> pd.DataFrame:
    """The cover-song sample's item table (title, artist, audio…), indexed by item id."""
    return pd.read_csv(COVERS / "items.csv", dtype=str).set_index("item_id")


def paired_tukey_by_statsmodels(rows) -> np.ndarray:
    """Tukey's HSD p-values of every pair of systems paired by query (Sakai 2018): the error is
    the residual mean square of statsmodels' two-way ANOVA ``y ~ C(system) + C(query)`` (no
    replication), q = |ȳᵢ − ȳⱼ| / √(MSE / n) and p = scipy's studentized range sf with k means
    and the residual's degrees of freedom. ``rows``: one array of per-query values per system,
    all over the same queries. A symmetric matrix, 1 on the diagonal."""
    import statsmodels.formula.api as smf
    from scipy.stats import studentized_range
    from statsmodels.stats.anova import anova_lm

    table = np.vstack([np.asarray(r, dtype=float) for r in rows])
    k, n = table.shape
    long = pd.DataFrame({"y": table.ravel(), "system": np.repeat(np.arange(k), n),
                         "query": np.tile(np.arange(n), k)})
    anova = anova_lm(smf.ols("y ~ C(system) + C(query)", data=long).fit())
    mse, df = anova.loc["Residual", "mean_sq"], anova.loc["Residual", "df"]
    assert df == (k - 1) * (n - 1)
    means = table.mean(axis=1)
    upper = np.triu_indices(k, 1)
    q = np.abs(means[upper[0]] - means[upper[1]]) / np.sqrt(mse / n)
    p = np.ones((k, k))
    p[upper] = p[upper[::-1]] = studentized_range.sf(q, k, df)
    return p


# ---- the version-identification sample (sample_data/versions), by pytrec_eval ------------------

VERSIONS = Path(__file__).resolve().parents[1] / "sample_data" / "versions"


def versions_by_pytrec_eval(system: str, measures: set[str]) -> tuple[dict, dict]:
    """The versions sample's ground truth, {query: {item: grade}}, and pytrec_eval's
    ``measures`` (its names: "map", "P_10"…) of ``system``'s run, {query: {measure: value}}
    (a query the run lacks is left out), from the sample's files."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for line in (VERSIONS / "qrels.txt").read_text().splitlines():
        query, _, item, grade = line.split()
        qrels.setdefault(query, {})[item] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (VERSIONS / f"{system}.run").read_text().splitlines():
        query, _, item, _, score, _ = line.split()
        run.setdefault(query, {})[item] = float(score)
    return qrels, pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)



# ---- the text-to-music sample (sample_data/text2music), judged further -------------------------

TEXT2MUSIC = Path(__file__).resolve().parents[1] / "sample_data" / "text2music"


def text2music_by_numpy(model: str) -> dict[str, dict[str, float]]:
    """A model's run as cosine similarities of its embeddings, computed in float64 by NumPy,
    {query: {item: score}}."""
    queries = np.load(TEXT2MUSIC / f"{model}_queries.npy").astype(np.float64)
    items = np.load(TEXT2MUSIC / f"{model}_items.npy").astype(np.float64)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    items /= np.linalg.norm(items, axis=1, keepdims=True)
    query_ids = (TEXT2MUSIC / "query_ids.txt").read_text().split()
    item_ids = (TEXT2MUSIC / "item_ids.txt").read_text().split()
    scores = queries @ items.T
    return {q: dict(zip(item_ids, map(float, row))) for q, row in zip(query_ids, scores)}


def text2music_qrels_with(judgments: dict[tuple[str, str], int]) -> dict[str, dict[str, int]]:
    """The sample's qrels.csv read by pandas, each (query, item) of ``judgments`` taking its
    grade (the latest counts), {query: {item: grade}}."""
    qrels: dict[str, dict[str, int]] = {}
    frame = pd.read_csv(TEXT2MUSIC / "qrels.csv", dtype=str)
    for query, item, grade in frame.itertuples(index=False):
        qrels.setdefault(query, {})[item] = int(grade)
    for (query, item), grade in judgments.items():
        qrels.setdefault(query, {})[item] = int(grade)
    return qrels


def judged_and_ap_by_pytrec_eval(run: dict, qrels: dict, query: str, k: int) -> tuple[float, float]:
    """Judged@k of one query by counting (the judged share of the run's top k, by score) and its
    AP by pytrec_eval's map."""
    import pytrec_eval

    top = sorted(run[query], key=lambda item: -run[query][item])[:k]
    judged = sum(item in qrels.get(query, {}) for item in top) / len(top)
    ap = pytrec_eval.RelevanceEvaluator({query: qrels[query]}, {"map"}).evaluate(
        {query: run[query]})[query]["map"]
    return judged, ap


# ---- formats and colours, read as their documents define them ---------------------------------

def provenance_of_csv(text: str) -> dict:
    """The provenance record back from a CSV's leading comment lines, as docs/command_line.md
    writes them: ``# key: value``, one line per key, the value compact JSON."""
    record = {}
    for line in text.splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(": ")
        record[key] = json.loads(value)
    return record


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of a '#rrggbb' (or '#rgb') colour: the sRGB channels
    linearised, weighted 0.2126, 0.7152, 0.0722."""
    value = colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    channels = [int(value[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two '#rrggbb' (or '#rgb') colours, from 1 (the same) to 21
    (black on white): (L1 + 0.05) / (L2 + 0.05), L the relative luminance, the lighter colour's
    over the darker's."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# What Streamlit's renderer links by itself (remark-gfm's literal autolinks, as
# mdast-util-gfm-autolink-literal finds them in the text once the escapes are read): a URL from
# "http://", "https://" or "www.", and an address "name@host.tld" (so "mailto:name@host.tld").
# Stricter than remark-gfm: the character before a match is not looked at.
AUTOLINKED = re.compile(r"(?i)(?:https?://|www(?=\.))[-.\w]+|[-.\w+]+@[-\w]+(?:\.[-\w]+)+",
                        re.ASCII)
MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")   # CommonMark: \ before ASCII punctuation


def autolinks(markdown: str) -> list[str]:
    """The links Streamlit's Markdown would make by itself from ``markdown``."""
    return AUTOLINKED.findall(MARKDOWN_ESCAPE.sub(r"\1", markdown))
