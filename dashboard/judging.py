"""Judging in the Query explorer: the holes of a qrels ground truth filled by listening, where
the numbers are.

Judgments are kept in a database that whoever starts the server names,
``streamlit run app.py -- --judgments FILE`` (SQLite) or ``-- --judgments postgresql://…`` (a team
judging from several machines), or the environment variable ``MRE_JUDGMENTS``; without either, the
SQLite file ``judgments.sqlite`` in the user's data folder (``$XDG_DATA_HOME``, else
``~/.local/share``, under ``music-retrieval-evaluation/``), created at the first judgment. The
engine keeps them (:mod:`metrics.judgments`): each row the dataset (the SHA-256 of its qrels
file), query, item, grade, judge, pool and time; judging again adds a row, the latest counts.

Every page shows the ground truth grown by them: :func:`with_judgments` puts the latest grades in
the :class:`~dashboard.settings.DataSource` (so every cache is keyed by them) and
:func:`merged_inputs` hands the pipeline the qrels merged with them, judged as a file would be.
The ground-truth file is never written. Datasets whose truth is not a qrels file (labels,
taxonomies) judge every item: nothing to judge.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.datasets import evaluation_inputs, load_source
from dashboard.players import audio_player, label
from dashboard.safe import md
from dashboard.tables import download_file
from dashboard.settings import (JUDGE, DataSource, source, started_with, tie_policy,
                                upload_store)
from dashboard.what_if_view import change_headline, show_change_table
from metrics import InputError, evaluate
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.errors import StoreError
from metrics.evaluation.cells import LARGEST_EXACT_INTEGER
from metrics.explain.samples import SAMPLES
from metrics.explain.summaries import query_index
from metrics.judgments import (Judgment, JudgmentStore, dataset_digest, judging_queue,
                               merged_qrels, qrels_text)
from metrics.ranking.inputs import EMBEDDINGS_QRELS, QRELS, RUNS_QRELS, EvaluationInputs
from metrics.ranking.pipelines import load_truth

JUDGMENTS_OPTION, JUDGMENTS_VARIABLE = "--judgments", "MRE_JUDGMENTS"
DATA_FOLDER = "music-retrieval-evaluation"   # the default database's folder in the data folder
DEFAULT_FILE = "judgments.sqlite"
JUDGED_KINDS = (RUNS_QRELS, EMBEDDINGS_QRELS)   # the kinds whose ground truth is a qrels file
QUEUE_SHOWN = 30   # the queue's items drawn at once (each with a player and grade buttons)
QUEUE_RULE = ("Pool order: the unjudged items of the top K of the systems shown, those one "
              "system ranks high and another low or not at all first (the largest spread of "
              "their ranks, an item a list lacks counted at K + 1), then by best rank: a "
              "judgment of those can change the comparison most.")
KEYS_HELP = "Keys: 0–9 grade the current item, space plays or pauses it, n and p move on and back."


# ---- where the judgments are kept ---------------------------------------------------------------

def default_target(environ: dict[str, str] | None = None) -> str:
    """The SQLite file used when the server is started without a database named."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_DATA_HOME", "").strip() or "~/.local/share"
    return str(Path(base).expanduser() / DATA_FOLDER / DEFAULT_FILE)


def judgments_target(argv: list[str] | None = None,
                     environ: dict[str, str] | None = None) -> str:
    """The database the server keeps judgments in: ``--judgments FILE|URL`` among the script's
    arguments, else ``MRE_JUDGMENTS``, else :func:`default_target`."""
    return (started_with(JUDGMENTS_OPTION, JUDGMENTS_VARIABLE, argv, environ)
            or default_target(environ))


def _is_file(target: str) -> bool:
    return "://" not in target


@st.cache_resource(show_spinner=False)   # one per server and database; a failure is not kept
def _opened(target: str) -> JudgmentStore:
    if target == default_target():   # the user's data folder may not have ours yet
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    return JudgmentStore(target)


def judgment_store(create: bool = False) -> JudgmentStore | None:
    """The server's store; None when it is a file not made yet and ``create`` is not asked (no
    judgment was ever stored there: nothing is created by reading). Raises StoreError."""
    target = judgments_target()
    if _is_file(target) and not create and not Path(target).expanduser().exists():
        return None
    return _opened(target)


_LATEST_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False, ttl=2, max_entries=64)
def _latest(target: str, dataset: str) -> dict[tuple[str, str], int] | StoreError:
    """The latest grades of a dataset, read again at most every 2 s (another session's judgments
    appear then) and at once after this server stores one (:func:`_forget_latest`). A store
    that cannot be read gives its error, kept as long: a server that is down is not asked again
    by every page of every run."""
    try:
        store = judgment_store()
        return {} if store is None else store.latest(dataset)
    except StoreError as exc:
        return exc


def _forget_latest() -> None:
    with _LATEST_LOCK:
        _latest.clear()


# ---- the ground truth a dataset is judged from ---------------------------------------------------

@dataclass(frozen=True)
class Truth:
    """A dataset's qrels file: its name, content and content hash (the dataset's id in the
    store)."""

    name: str
    content: bytes
    dataset: str


def dataset_inputs(src: DataSource, ties: TiePolicy = TiePolicy.STABLE,
                   store: dict | None = None) -> EvaluationInputs | None:
    """The files a dataset is judged from; None for a sample built otherwise (answer sets)."""
    if src.is_sample:
        inputs = SAMPLES[src.sample].inputs
        return inputs(ties) if inputs is not None else None
    return evaluation_inputs(src, ties, store)


@lru_cache(maxsize=16)
def _truth_of(name: str, path: str | None, content: bytes | None) -> Truth:
    content = Path(path).read_bytes() if content is None else content
    return Truth(name, content, dataset_digest(content))


def truth_of(src: DataSource, store: dict | None = None) -> Truth | None:
    """The qrels file of ``src`` (without its judgments), or None when its ground truth is not
    one (labels and taxonomies judge every item)."""
    inputs = dataset_inputs(replace(src, judgments=()), TiePolicy.STABLE,
                            upload_store() if store is None else store)
    if inputs is None or inputs.kind not in JUDGED_KINDS:
        return None
    given, name = inputs.one(QRELS)
    if isinstance(given, (bytes, bytearray)):
        return _truth_of(name, None, bytes(given))
    return _truth_of(name, str(given), None)


def judgeable() -> bool:
    """Whether the current dataset can be judged: its ground truth is a qrels file."""
    try:
        return truth_of(source(judged=False)) is not None
    except InputError:
        return False


def with_judgments(src: DataSource) -> DataSource:
    """``src`` with the latest stored grades of its dataset (none: ``src`` itself). A store that
    cannot be read leaves the ground truth as the file gives it, and says so in the sidebar."""
    if src.judgments:
        return src
    try:
        truth = truth_of(src)
        if truth is None:
            return src
        latest = _latest(judgments_target(), truth.dataset)
    except InputError:   # the data cannot be read: the page says so when it loads them
        return src
    if isinstance(latest, StoreError):
        st.session_state["_judgments_unread"] = str(latest)
        return src
    st.session_state.pop("_judgments_unread", None)
    if not latest:
        return src
    return replace(src, judgments=tuple((q, i, int(g)) for (q, i), g in latest.items()))


def merged_inputs(src: DataSource, ties: TiePolicy, store: dict | None) -> EvaluationInputs:
    """The inputs of ``src`` with its qrels merged with its judgments (as TREC qrels text under
    the file's own name, so that its messages name it)."""
    inputs = dataset_inputs(replace(src, judgments=()), ties, store)
    given, name = inputs.one(QRELS)
    merged = merged_qrels(load_truth(given, name), judgments_of(src))
    text = qrels_text(merged, name).encode()
    return replace(inputs, files=tuple((role, file, text if role == QRELS.name else content)
                                       for role, file, content in inputs.files))


def judgments_of(src: DataSource) -> dict[tuple[str, str], int]:
    """The judgments ``src`` holds, ``{(query, item): grade}``."""
    return {(q, i): g for q, i, g in src.judgments}


def judgments_note() -> str | None:
    """What the sidebar says about the ground truth: how many stored judgments grow it, or why
    the store could not be read; None when there is nothing to say."""
    unread = st.session_state.get("_judgments_unread")
    if unread:
        return f"The judgments database cannot be read, so the ground truth is the file's: {unread}"
    count = len(source().judgments)
    if not count:
        return None
    return (f"Ground truth: the file's qrels grown by {count:,} stored judgment"
            f"{'' if count == 1 else 's'} (the latest of each item counts).")


# ---- the judging panel ---------------------------------------------------------------------------

AT, FOR, STORED, FAILED = "judge_at", "_judge_for", "_judge_stored", "_judge_failed"


MOST_GRADES = 10   # grade buttons, 0 to 9: one digit key each


def highest_grade(original: dict[str, JudgedRanking]) -> int:
    """The top of the grade scale: the ground truth's highest grade (1 for a binary one), at
    most the largest whole number a browser's number box holds exactly."""
    return min(max(max(j.max_grade for j in original.values()), 1), LARGEST_EXACT_INTEGER)


def _store_judgment(judgment: Judgment, move_to: int) -> None:
    """A grade button's callback: the judgment stored (committed when ``add`` returns) and then
    applied; one that could not be stored is shown as such and nothing changes."""
    try:
        judgment_store(create=True).add(judgment)
    except (StoreError, InputError) as exc:
        st.session_state[FAILED] = str(exc)
        return
    st.session_state.pop(FAILED, None)
    _forget_latest()
    st.session_state[AT] = move_to
    st.session_state[STORED] = True   # the whole page reruns: every number follows


def _store_typed(judgment: Judgment, box: str, move_to: int) -> None:
    """The typed grade's button (a scale beyond 0-9): :func:`_store_judgment` of its box."""
    typed = st.session_state.get(box)
    if typed is not None:
        _store_judgment(replace(judgment, grade=int(typed)), move_to)


def _move(to: int) -> None:
    st.session_state[AT] = to


def _one_query(data: dict[str, JudgedRanking], system: str, query_id: str) -> JudgedRanking:
    return data[system].subset(np.array([query_index(data[system], query_id)]))


def judging_marks(table: pd.DataFrame, cutoff: int, judged_now: set[str]) -> list[str]:
    """The ranked list's judging column: "to judge" for an unjudged item of the top K, "judged
    now" for an item whose grade a stored judgment gives."""
    return ["judged now" if str(item) in judged_now else
            "to judge" if pd.isna(grade) and rank <= cutoff else ""
            for rank, item, grade in zip(table["rank"], table["item"], table["grade"])]


def judged_now(query_id: str) -> set[str]:
    """The items of ``query_id`` whose grade a stored judgment gives."""
    return {i for q, i, _ in source().judgments if q == query_id}


def judging_panel(data: dict[str, JudgedRanking], systems: list[str], query_id: str,
                  cutoff: int, items: pd.DataFrame | None, measures) -> None:
    """The judging panel of one query: the unjudged items of the top K of ``systems`` (the one
    shown and the one compared) in pool order, each with its player, title and artist and the
    grade scale as buttons, the keys, the query's measures before judging → now, and the
    downloads of what was judged. ``data``: the rankings as shown (judgments applied)."""
    if st.session_state.pop(STORED, False):
        st.rerun()   # a judgment was stored: the whole page, not this fragment, follows it
    src = source(judged=False)
    truth = truth_of(src)
    if truth is None:
        return
    original = load_source(src, tie_policy(), upload_store())
    shown = [s for s in systems if query_index(original[s], query_id) is not None]
    lists, before_judged = {}, set()
    for s in shown:
        q = query_index(original[s], query_id)
        ids, _ = original[s].ranked_list(q, 0, cutoff)
        lists[s] = [str(i) for i in ids]
        hits = original[s].hit_ranks[original[s].offsets[q]:original[s].offsets[q + 1]]
        before_judged.update(lists[s][r - 1] for r in hits if r <= len(lists[s]))
    queue = judging_queue(lists, cutoff, before_judged)
    now = {i: g for (q, i), g in judgments_of(source()).items() if q == query_id}
    with st.container(border=True, key="judging_panel"):
        left = sum(e.item not in now for e in queue)
        st.subheader(f"Judge the top K = {cutoff:,}: {left:,} of {len(queue):,} "
                     f"unjudged item{'' if len(queue) == 1 else 's'} left", help=QUEUE_RULE)
        if not queue:
            st.markdown("Every item of the top K of " + md(" and ".join(shown)) + " was judged "
                        "in the ground truth: nothing to judge here.")
            _show_exports(truth)
            return
        _before_and_now(original, data, shown[0], query_id, cutoff, measures)
        judge = str(st.session_state.get(JUDGE) or "").strip() or "anonymous"
        st.caption(f"{QUEUE_RULE} {KEYS_HELP} Stored as judge **{md(judge)}** (type your name "
                   f"in the sidebar) in {md(store_name())}.")
        failed = st.session_state.get(FAILED)
        if failed:
            st.error(f"not stored: {md(failed)}")
        if st.session_state.get(FOR) != (truth.dataset, query_id):
            st.session_state[FOR] = (truth.dataset, query_id)
            st.session_state[AT] = next((i for i, e in enumerate(queue) if e.item not in now), 0)
        current = min(int(st.session_state.get(AT, 0)), len(queue) - 1)
        highest = highest_grade(original)
        pool = f"explorer top {cutoff} of {', '.join(shown)}"
        for i, entry in enumerate(queue[:QUEUE_SHOWN]):
            _queue_item(i, entry, i == current, now.get(entry.item), highest, items,
                        Judgment(truth.dataset, query_id, entry.item, 0, judge, pool),
                        min(i + 1, len(queue) - 1))
        if len(queue) > QUEUE_SHOWN:
            st.caption(f"The first {QUEUE_SHOWN} of {len(queue):,} items to judge; a smaller K "
                       "shows fewer.")
        with st.container(horizontal=True):
            st.button("← Previous (p)", key="judge_prev", disabled=current == 0,
                      on_click=_move, args=(current - 1,))
            st.button("Next (n) →", key="judge_next",
                      disabled=current >= min(len(queue), QUEUE_SHOWN) - 1,
                      on_click=_move, args=(current + 1,))
        _KEYS(key="judging_keys", data={"current": current}, height=0)
        _show_exports(truth)


def _queue_item(i: int, entry, current: bool, grade: int | None, highest: int,
                items: pd.DataFrame | None, judgment: Judgment, then: int) -> None:
    """One item of the queue: where each system ranks it, its title and artist, its player
    and a button per grade, 0 to ``highest`` (the current item's are the keys'); a scale beyond
    9 adds a box for the grades above."""
    row = items.loc[entry.item] if items is not None and entry.item in items.index else None
    ranks = ", ".join(f"{md(s)}: {'rank ' + str(r) if r is not None else 'not in the top K'}"
                      for s, r in entry.ranks.items())
    status = "unjudged" if grade is None else f"**judged {grade}**"
    with st.container(border=current, key=f"judge_item_{i}"):
        st.markdown(f"{'▶ ' if current else ''}**{i + 1}.** {md(label(entry.item, row))} · "
                    f"{ranks} · {status}")
        audio_player(row, f"judge_{i}")
        with st.container(horizontal=True, gap="small"):
            for g in range(min(highest, MOST_GRADES - 1) + 1):
                st.button(str(g), key=f"judge_{i}_grade_{g}", on_click=_store_judgment,
                          args=(replace(judgment, grade=g), then),
                          type="primary" if grade == g else "secondary",
                          help=f"judge {entry.item} grade {g}"
                               + (" (not relevant)" if g == 0 else ""))
            if highest >= MOST_GRADES:
                box = f"judge_{i}_typed"
                st.number_input("Grade", min_value=0, max_value=highest, value=None, step=1,
                                key=box, width=160, label_visibility="collapsed",
                                placeholder=f"grade up to {highest:,}")
                st.button("Store this grade", key=f"judge_{i}_store", on_click=_store_typed,
                          args=(judgment, box, then))


def _before_and_now(original: dict[str, JudgedRanking], data: dict[str, JudgedRanking],
                    system: str, query_id: str, cutoff: int, measures) -> None:
    """The query's measures before judging (the file's ground truth) and now (grown by the
    stored judgments), Judged@K among them, as the "what if" shows its change."""
    names = [str(m) for m in measures]
    judged_share = f"Judged@{cutoff}"
    names += [judged_share] if judged_share not in names else []
    before, after = (evaluate(_one_query(d, system, query_id), names) for d in (original, data))
    before = {m: float(r.values[0]) for m, r in before.results.items()}
    after = {m: float(r.values[0]) for m, r in after.results.items()}
    headline = next((m for m in after if m.startswith("AP")), None)
    st.markdown(f"**{md(system)}, before judging → now:** "
                + "; ".join(filter(None, [change_headline(judged_share, before, after),
                                          change_headline(headline, before, after)
                                          if headline else ""])))
    with st.expander("Every measure of this query, before judging → now"):
        show_change_table(before, after, ("before judging", "now"))


def store_name() -> str:
    """The judgments database as the page names it (a URL without its password)."""
    from metrics.judgments.store import shown

    return shown(judgments_target())


def _show_exports(truth: Truth) -> None:
    """The judged ground truth as TREC qrels: merged with the file's, the new judgments alone,
    or one judge's. Each file is made when its button is pressed."""
    stem = Path(truth.name).stem
    latest = judgments_of(source())
    with st.container(horizontal=True):
        download_file("Download the merged qrels", lambda: merged_text(truth, latest),
                      f"{stem}_merged.qrels", "text/plain", key="export_merged",
                      help="the ground-truth file's qrels with the stored judgments applied "
                           "(the latest of each item counts)")
        download_file("Download the new judgments", lambda: qrels_text(merged_qrels(None, latest)),
                      f"{stem}_judgments.qrels", "text/plain", key="export_new",
                      disabled=not latest, help="the stored judgments alone")
        try:
            store = judgment_store()
            judges = store.judges(truth.dataset) if store is not None else []
        except StoreError:
            judges = []
        if judges:
            judge = st.selectbox("Judge", judges, key="export_judge",
                                 label_visibility="collapsed")
            download_file(f"Download {md(judge)}'s judgments", lambda: qrels_text(merged_qrels(
                None, judgment_store().latest(truth.dataset, judge=judge))),
                f"{stem}_{_file_safe(judge)}.qrels", "text/plain", key="export_judge_file")
    st.caption(f"Dataset id (its qrels file's SHA-256) for `python -m metrics judgments export`: "
               f"`{truth.dataset}`")


def merged_text(truth: Truth, latest: dict[tuple[str, str], int]) -> str:
    """The ground-truth file's qrels grown by ``latest``, as TREC qrels."""
    return qrels_text(merged_qrels(load_truth(truth.content, truth.name), latest), truth.name)


def _file_safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60] or "judge"


_KEYS = st.components.v2.component("judging_keys",
                                   js=(Path(__file__).with_name("judging_keys.js").read_text()))


# ---- another judge: the agreement panel (Leaderboard) and its file (Data page) -----------------

SECOND, SECOND_ERROR = "second_truth", "second_truth_error"
SECOND_UPLOAD = "second_truth_upload"


def take_second_truth() -> None:
    """The Data page's uploader callback: another judge's qrels, read (and refused with its
    message) now, kept for the current dataset."""
    given = st.session_state.get(SECOND_UPLOAD)
    st.session_state.pop(SECOND_ERROR, None)
    if given is None:
        st.session_state.pop(SECOND, None)
        return
    content = given.getvalue()
    try:
        load_truth(content, given.name)
        truth = truth_of(source(judged=False))
    except InputError as exc:
        st.session_state[SECOND_ERROR] = str(exc)
        return
    st.session_state[SECOND] = {"dataset": truth.dataset if truth else None,
                                "name": given.name, "content": content}


def second_truth_slot() -> None:
    """The Data page's slot for another judge's qrels of the same queries and items."""
    held = st.session_state.get(SECOND)
    with st.expander("Another judge's qrels, for the agreement panel on the Leaderboard",
                     expanded=held is not None or SECOND_ERROR in st.session_state):
        st.file_uploader("Another judge's qrels (TREC qrels or CSV, as the ground truth)",
                         key=SECOND_UPLOAD, on_change=take_second_truth,
                         help="judgments of the same queries and items by someone else: the "
                              "Leaderboard shows how far the two agree (Cohen's κ) and whether "
                              "the systems' order changes with the judge")
        if SECOND_ERROR in st.session_state:
            st.error(f"Cannot use this file: {md(st.session_state[SECOND_ERROR])}")
        elif held is not None:
            st.caption(f"{md(held['name'])} is loaded: the Leaderboard compares it with this "
                       "dataset's ground truth.")


def _second_for(truth: Truth) -> dict | None:
    held = st.session_state.get(SECOND)
    return held if held is not None and held["dataset"] == truth.dataset else None


@st.cache_resource(show_spinner="Comparing the judges…", max_entries=16)
def _agreement(src: DataSource, ties: TiePolicy, sides: tuple, rel: int,
               measure: str, _truths, _data: dict[str, JudgedRanking]):
    from metrics.data.run import Run
    from metrics.judgments import agreement

    runs = {system: Run.from_lists({str(j.query_ids[q]): [str(i) for i in j.ranked_list(q)[0]]
                                    for q in range(j.num_queries)}, name=system)
            for system, j in _data.items()}
    return agreement(*_truths(), rel=rel, runs=runs, measure=measure, ties=ties)


def agreement_panel(data: dict[str, JudgedRanking], measure: str, threshold: int) -> None:
    """The Leaderboard's agreement panel, when a second ground truth is there: another judge's
    qrels (the Data page) beside this dataset's ground truth (with the stored judgments), or two
    judges of the store. κ on relevance (grade ≥ the threshold), weighted κ on grades, per
    query, and each system's mean of ``measure`` under each truth with Kendall's τ and the
    pairs of systems that swap (:func:`metrics.judgments.agreement`)."""
    try:
        truth = truth_of(source(judged=False))
        store = judgment_store() if truth is not None else None
        judges = store.judges(truth.dataset) if store is not None else []
    except (InputError, StoreError):
        return
    if truth is None:
        return
    second = _second_for(truth)
    choices = ([f"the ground truth and {second['name']}"] if second else []) + \
        ([f"judge {a} and judge {b}" for x, a in enumerate(judges) for b in judges[x + 1:]])
    if not choices:
        return
    st.subheader("Agreement between judges",
                 help="Cohen's κ on the pairs both judged: 1 is full agreement, 0 what chance "
                      "gives; and whether the systems' order depends on the judge (Voorhees, "
                      "2000)")
    chosen = st.selectbox("Compare", choices, key="agreement_pair") if len(choices) > 1 \
        else choices[0]
    if second and chosen == choices[0]:
        def truths():
            grown = merged_qrels(load_truth(truth.content, truth.name),
                                 judgments_of(source()), truth.name)
            return grown, load_truth(second["content"], second["name"])
        names = ("the ground truth", second["name"])
        key = (truth.dataset, dataset_digest(second["content"]))
    else:
        pair = next((a, b) for x, a in enumerate(judges) for b in judges[x + 1:]
                    if f"judge {a} and judge {b}" == chosen)
        given = [store.latest(truth.dataset, judge=j) for j in pair]

        def truths():
            return tuple(merged_qrels(None, latest, f"judge {j}")
                         for j, latest in zip(pair, given))
        names = tuple(f"judge {j}" for j in pair)
        key = tuple(tuple(latest.items()) for latest in given)   # what each judge gave
    result = _agreement(source(), tie_policy(), key, threshold, measure, truths, data)
    _show_agreement(result, names)


def _kappa(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _show_agreement(result, names: tuple[str, str]) -> None:
    a, b = (md(n) for n in names)
    with st.container(horizontal=True):
        st.metric("Pairs judged by both", f"{result.pairs:,}")
        st.metric(f"κ on relevance (grade ≥ {result.rel})", _kappa(result.kappa))
        st.metric("Weighted κ on grades (linear)", _kappa(result.weighted_kappa))
        if result.systems is not None:
            st.metric("Kendall's τ of the systems' orders",
                      _kappa(result.systems.kendall_tau))
    for note in result.notes():
        st.caption(md(note))
    systems = result.systems
    if systems is not None:
        table = pd.DataFrame({"system": systems.names, f"{systems.measure} under {names[0]}":
                              systems.mean_a, f"{systems.measure} under {names[1]}":
                              systems.mean_b})
        st.dataframe(table, hide_index=True, width="stretch", placeholder="undefined")
        st.markdown(("**Pairs of systems that swap:** " + "; ".join(
            f"{md(x)} is better under {a}, {md(y)} under {b}" for x, y in systems.swaps))
            if systems.swaps else f"**No pair of systems swaps** between {a} and {b}.")
    per_query = pd.DataFrame([{"query": q, "pairs": v.pairs, "κ": v.kappa}
                              for q, v in result.per_query.items()])
    with st.expander(f"κ of each query ({len(per_query):,})"):
        st.dataframe(per_query, hide_index=True, width="stretch", placeholder="undefined")
