"""Write the bundled sample data of ``sample_data/``.

Run from the repository root::

    python sample_data/make_samples.py

The script needs only numpy and the standard library, never touches the network and is
deterministic: every random draw comes from ``numpy.random.default_rng`` seeded with a fixed
number (one independent stream per dataset), every text file is written with ``\\n`` line ends
and fixed number formats, and every ``.npy`` file holds a plain numeric array. Running it twice
gives byte-identical files.

Datasets (see README.md next to this file):

* ``fmp/``          the two worked toy examples of the FMP notebook on retrieval evaluation;
* ``serra/``        the six answer sets of Serrà (2007), Table 1, and the printed Table 2;
* ``covers/``       a synthetic cover-song collection with two all-vs-all similarity matrices;
* ``instruments/``  a synthetic instrument-retrieval task with a two-level taxonomy, two runs;
* ``text2music/``   a synthetic text-to-music task with query and item embeddings of two models;
* ``versions/``     a synthetic version-identification task: five systems' TREC runs on one qrels;
* ``tinysol/``      TinySOL's real instrument taxonomy (from mirdata's index), two synthetic runs.

Items carry ``items.csv`` tables (title, artist, ...) and the cover-song, instrument and
text-to-music samples short WAV clips under ``audio/`` (synthesised by ``sounds.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import sounds   # beside this script: the clips' synthesis

SEED = 20240607
OUT = Path(__file__).resolve().parent


def rng_for(dataset: int) -> np.random.Generator:
    """An independent random stream per dataset, so editing one generator leaves the others'
    files unchanged."""
    return np.random.default_rng([SEED, dataset])


# ---- writing helpers -----------------------------------------------------------------------------

def write_text(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write("".join(line + "\n" for line in lines))


def write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    """A small CSV writer with fixed formatting; quotes a cell only if it holds a comma or quote."""
    def cell(value) -> str:
        text = str(value)
        if any(c in text for c in ',"\n'):
            text = '"' + text.replace('"', '""') + '"'
        return text
    write_text(path, [",".join(cell(c) for c in row) for row in [header, *rows]])


def save_npy(path: Path, array: np.ndarray) -> None:
    array = np.ascontiguousarray(array)
    assert array.dtype.kind in "fiu", "only numeric arrays are saved"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, array, allow_pickle=False)


def trec_run_lines(qid: str, items: list[str], scores: list[float], tag: str,
                   fmt: str = "{:.4f}") -> list[str]:
    """TREC run lines ``qid Q0 item rank score tag`` in rank order (descending score; equal
    scores keep the order given)."""
    order = sorted(range(len(items)), key=lambda i: -scores[i])
    return [f"{qid} Q0 {items[i]} {rank} {fmt.format(scores[i])} {tag}"
            for rank, i in enumerate(order, start=1)]


def format_score(value: float) -> str:
    """Whole numbers without a decimal point, others as written (toy examples)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


# ---- 1. FMP toy examples (Müller's FMP, notebook C7S3) -------------------------------------------

FMP_TOYS = {
    # name: (scores of documents 1..K, relevant document ids)
    "toy1": ([8, 52, 22, 10, 12, 34, 11, 27, 72, 18], {2, 7, 8, 9}),
    "toy2": ([0.7, 2.6, 3.6, 3.5, 3.2, 3.7, 1.5, 3.1], {2, 3, 4, 8}),
}


def make_fmp() -> None:
    folder = OUT / "fmp"
    combined_run, combined_qrels = [], []
    for name, (scores, relevant) in FMP_TOYS.items():
        ids = [str(k) for k in range(1, len(scores) + 1)]
        order = sorted(range(len(ids)), key=lambda i: -scores[i])  # no ties in either example

        def run_lines(qid: str) -> list[str]:
            return [f"{qid} Q0 {ids[i]} {rank} {format_score(scores[i])} fmp_{name}"
                    for rank, i in enumerate(order, start=1)]

        def qrels_lines(qid: str) -> list[str]:  # every document judged: 1 relevant, 0 not
            return [f"{qid} 0 {k} {1 if int(k) in relevant else 0}" for k in ids]

        write_text(folder / f"{name}.run", run_lines("Q"))
        write_text(folder / f"{name}.qrels", qrels_lines("Q"))
        combined_run += run_lines(name)
        combined_qrels += qrels_lines(name)
    write_text(folder / "toys.run", combined_run)
    write_text(folder / "toys.qrels", combined_qrels)


# ---- 2. Serrà's answer sets (Serrà 2007, Tables 1 and 2; Table 1 as every row of Table 2 reads it) ---

SERRA_SETS = {  # answer set: (1-based relevant positions in the list of 14, |R_q|)
    "A1": ([4], 1),
    "A2": ([1, 2, 3, 5], 7),
    "A3": ([6, 7, 8, 10], 7),
    "A4": ([2, 4, 6, 8], 14),
    "A5": ([1, 8, 9, 10], 14),
    "A6": ([], 4),
}
SERRA_LENGTH = 14
SERRA_COLLECTION = 2054

# Table 2 as printed in the paper, cell for cell (strings, so "1.000" stays "1.000").
SERRA_TABLE2 = [
    ("TP", "1", "4", "4", "4", "4", "0"),
    ("FP", "13", "10", "10", "10", "10", "14"),
    ("FN", "0", "3", "3", "10", "10", "14"),
    ("TN", "2040", "2037", "2037", "2030", "2030", "2036"),
    ("Accuracy", "0.994", "0.994", "0.994", "0.990", "0.990", "0.991"),
    ("Sensitivity", "1.000", "0.571", "0.571", "0.285", "0.285", "0.000"),
    ("Specificity", "1.000", "0.998", "0.998", "0.995", "0.995", "0.998"),
    ("Fallout rate", "0.006", "0.005", "0.005", "0.005", "0.005", "0.007"),
    ("Precision", "0.071", "0.286", "0.286", "0.286", "0.286", "0.000"),
    ("Recall", "1.000", "0.571", "0.571", "0.286", "0.286", "0.000"),
    ("Break-even point", "0.3", "0.7", "0.3", "0.5", "0.4", "0.1"),
    ("AP", "0.250", "0.950", "0.307", "0.500", "0.496", "0.000"),
    ("F-measure", "0.133", "0.381", "0.381", "0.286", "0.286", "0.000"),
    ("RR", "0.018", "0.145", "0.038", "0.074", "0.095", "0.000"),
    ("DCG", "0.721", "3.974", "1.987", "3.203", "2.371", "0.000"),
    ("bpref", "-2.000", "0.550", "0.143", "0.235", "0.194", "0.000"),
    ("bpref-10", "0.727", "0.563", "0.395", "0.256", "0.232", "0.000"),
    ("bpref*", "0.800", "0.564", "0.428", "0.260", "0.239", "0.000"),
]


def make_serra() -> None:
    folder = OUT / "serra"
    write_csv(folder / "answer_sets.csv", ["answer_set", "relevant_positions", "num_relevant"],
              [[name, " ".join(str(p) for p in pos), r] for name, (pos, r) in SERRA_SETS.items()])
    write_csv(folder / "table2.csv", ["measure", *SERRA_SETS], [list(row) for row in SERRA_TABLE2])
    write_text(folder / "meta.json", [json.dumps({"answer_set_length": SERRA_LENGTH,
                                                  "collection_size": SERRA_COLLECTION})])
    # The same answer sets as a run and qrels for the command line: the list positions are items
    # a01..a14 (all judged), the covers a list missed are items u01.. (relevant, not retrieved).
    run, qrels = [], []
    for name, (positions, num_relevant) in SERRA_SETS.items():
        items = [f"a{j:02d}" for j in range(1, SERRA_LENGTH + 1)]
        run += trec_run_lines(name, items, [float(SERRA_LENGTH + 1 - j)
                                            for j in range(1, SERRA_LENGTH + 1)], "serra2007",
                              fmt="{:.0f}")
        qrels += [f"{name} 0 {item} {1 if j in positions else 0}"
                  for j, item in enumerate(items, start=1)]
        qrels += [f"{name} 0 u{k:02d} 1" for k in range(1, num_relevant - len(positions) + 1)]
    write_text(folder / "answer_sets.run", run)
    write_text(folder / "answer_sets.qrels", qrels)


# ---- 3. Synthetic cover-song collection (the setting of Serrà 2007) ------------------------------

def clique_sizes(rng: np.random.Generator, total: int) -> list[int]:
    """Clique sizes between 2 and 14 with many small cliques and a few large ones (Serrà's
    collection: 1 to 14 covers per original, 4.24 on average), summing to ``total``."""
    sizes = [14, 12]  # make sure the largest cliques of the range are present
    while sum(sizes) < total:
        sizes.append(int(min(14, 1 + rng.geometric(0.33))))
    excess = sum(sizes) - total
    while excess > 0:  # trim the last cliques back without going below 2
        i = len(sizes) - 1 - int(np.argmax([s > 2 for s in reversed(sizes)]))
        cut = min(excess, sizes[i] - 2)
        sizes[i] -= cut
        excess -= cut
    return sizes


def make_covers() -> tuple[np.ndarray, np.ndarray]:
    """Write the sample; return each item's clique number and departure (for its clip)."""
    rng = rng_for(3)
    folder = OUT / "covers"
    n_items, dim = 300, 24
    sizes = clique_sizes(rng, n_items)
    clique = np.repeat(np.arange(len(sizes)), sizes)
    clique = clique[rng.permutation(n_items)]          # cliques scattered over the row order
    labels = [f"work{c + 1:03d}" for c in clique]
    items = [f"c{i + 1:04d}" for i in range(n_items)]
    write_csv(folder / "labels.csv", ["item_id", "label"], [[i, l] for i, l in zip(items, labels)])

    # A work's "essence" (melody, harmony) shared by its versions; each version departs from it
    # by an amount that varies from version to version (a faithful cover vs a radical remake).
    works = rng.standard_normal((len(sizes), dim))
    departure = rng.uniform(0.4, 1.2, n_items)[:, None]
    versions = works[clique] + departure * rng.standard_normal((n_items, dim))

    def system(noise: float, asym: float, rng_sys: np.random.Generator) -> np.ndarray:
        features = unit_rows(versions + noise * rng_sys.standard_normal((n_items, dim)))
        scores = features @ features.T
        scores = scores + asym * rng_sys.standard_normal((n_items, n_items))  # not quite symmetric
        return scores

    system_a = system(noise=0.75, asym=0.07, rng_sys=rng)
    system_b = system(noise=0.45, asym=0.03, rng_sys=rng)
    # System A reports its similarities to two decimals for some queries: exact ties in a row.
    coarse = np.sort(rng.choice(n_items, size=n_items // 5, replace=False))
    system_a[coarse] = np.round(system_a[coarse], 2)
    for scores in (system_a, system_b):  # each item matches itself best (it is never ranked)
        np.fill_diagonal(scores, -np.inf)
        np.fill_diagonal(scores, np.round(scores.max(), 2) + 0.01)
    save_npy(folder / "system_a.npy", system_a.astype(np.float32))
    save_npy(folder / "system_b.npy", system_b.astype(np.float32))
    return clique, departure[:, 0]


# ---- 4. Instrument retrieval with a two-level taxonomy (the instrument-retrieval task) -----------

TAXONOMY = {  # family: instruments (leaves); relative frequency of each instrument in the corpus
    "strings": {"violin": 1.0, "cello": 0.7, "acoustic_guitar": 1.3, "electric_guitar": 1.4},
    "winds": {"flute": 0.8, "clarinet": 0.6, "saxophone": 0.9, "trumpet": 0.8},
    "percussion": {"drum_kit": 1.8, "congas": 0.5},
    "keyboards": {"piano": 1.8, "organ": 0.6},
}


def make_instruments() -> tuple[list[str], np.ndarray, np.ndarray]:
    """Write the sample; return the leaves and which excerpt holds which, how audibly."""
    rng = rng_for(4)
    folder = OUT / "instruments"
    rows = [[family, ""] for family in TAXONOMY]
    rows += [[leaf, family] for family, leaves in TAXONOMY.items() for leaf in leaves]
    write_csv(folder / "taxonomy.csv", ["class", "parent"], rows)

    leaves = [leaf for leaves in TAXONOMY.values() for leaf in leaves]
    family_of = {leaf: family for family, ls in TAXONOMY.items() for leaf in ls}
    weight = np.array([TAXONOMY[family_of[leaf]][leaf] for leaf in leaves])
    n_items = 200
    items = [f"x{i + 1:04d}" for i in range(n_items)]
    contains = np.zeros((n_items, len(leaves)), dtype=bool)
    # How audible an instrument is in an excerpt (a soloist vs. a quiet accompaniment).
    salience = rng.uniform(0.35, 1.0, (n_items, len(leaves)))
    notes = []
    for i, item in enumerate(items):
        k = int(rng.choice([1, 2, 3], p=[0.35, 0.4, 0.25]))
        chosen = rng.choice(len(leaves), size=k, replace=False, p=weight / weight.sum())
        contains[i, chosen] = True
        notes += [[item, leaves[j]] for j in sorted(chosen)]
    write_csv(folder / "annotations.csv", ["item_id", "class"], notes)

    sibling = np.zeros_like(contains)
    for j, leaf in enumerate(leaves):
        others = [k for k, o in enumerate(leaves) if o != leaf and family_of[o] == family_of[leaf]]
        sibling[:, j] = contains[:, others].any(axis=1) & ~contains[:, j]

    def system(own: float, confusion: float, noise: float, tag: str) -> None:
        lines = []
        for j, leaf in enumerate(leaves):
            score = (own * contains[:, j] * salience[:, j] + confusion * sibling[:, j]
                     + noise * rng.standard_normal(n_items))
            score = np.round(score, 4)
            top = np.argsort(-score, kind="stable")[:100]
            lines += trec_run_lines(leaf, [items[i] for i in top], [float(score[i]) for i in top],
                                    tag)
        write_text(folder / f"{tag}.run", lines)

    system(own=0.9, confusion=0.50, noise=0.55, tag="system_a")
    system(own=1.4, confusion=0.55, noise=0.50, tag="system_b")
    return leaves, contains, salience


# ---- 5. Text-to-music retrieval from embeddings (the text-to-music evaluation tutorial) ----------

GENRES = ["jazz", "rock", "classical", "electronic", "folk", "hip hop", "ambient", "latin"]
MOODS = ["calm", "energetic", "melancholic", "cheerful", "dark", "dreamy"]
INSTRUMENTS = ["piano", "acoustic guitar", "string ensemble", "synthesizer", "saxophone",
               "female vocals"]
TEMPLATES = [
    "{mood} {genre} with {instrument}",
    "{article} {mood} {genre} track led by {instrument}",
    "{instrument} in {article} {mood} {genre} piece",
    "{mood} {genre} centred on {instrument}",
    "something {mood}: {genre} featuring {instrument}",
]
EXTRAS = ["", "", "", " for a late night drive", " for studying", " for a rainy afternoon",
          " to dance to", " for a road trip"]


def make_text2music() -> tuple[list, list]:
    """Write the sample; return the (genre, mood, instrument) of each query and each item."""
    rng = rng_for(5)
    folder = OUT / "text2music"
    n_queries, n_items = 40, 250
    pairs = [(g, m) for g in range(len(GENRES)) for m in range(len(MOODS))]  # 48 (genre, mood)
    chosen = rng.permutation(len(pairs))
    query_pairs = [pairs[k] for k in chosen[:n_queries]]
    spare_pairs = [pairs[k] for k in chosen[n_queries:]]
    query_attr = [(g, m, int(rng.integers(len(INSTRUMENTS)))) for g, m in query_pairs]

    # Items: for each query, 2..8 items share its genre and mood (partly relevant); at least one
    # of them also has its lead instrument (a full match). The rest come from the unused pairs.
    item_attr = []
    for g, m, ins in query_attr:
        count = int(rng.integers(2, 9))
        exact = int(rng.integers(1, min(count, 4) + 1))
        for k in range(count):
            if k < exact:
                item_attr.append((g, m, ins))
            else:
                other = [x for x in range(len(INSTRUMENTS)) if x != ins]
                item_attr.append((g, m, int(rng.choice(other))))
    while len(item_attr) < n_items:
        g, m = spare_pairs[int(rng.integers(len(spare_pairs)))]
        item_attr.append((g, m, int(rng.integers(len(INSTRUMENTS)))))
    assert len(item_attr) == n_items, len(item_attr)
    item_attr = [item_attr[k] for k in rng.permutation(n_items)]

    query_ids = [f"t{q + 1:03d}" for q in range(n_queries)]
    item_ids = [f"m{i + 1:04d}" for i in range(n_items)]
    write_text(folder / "query_ids.txt", query_ids)
    write_text(folder / "item_ids.txt", item_ids)
    texts = []
    for qid, (g, m, ins) in zip(query_ids, query_attr):
        template = TEMPLATES[int(rng.integers(len(TEMPLATES)))]
        article = "an" if MOODS[m][0] in "aeiou" else "a"
        text = template.format(article=article, mood=MOODS[m], genre=GENRES[g],
                               instrument=INSTRUMENTS[ins])
        texts.append([qid, text + EXTRAS[int(rng.integers(len(EXTRAS)))],
                      GENRES[g], MOODS[m], INSTRUMENTS[ins]])
    write_csv(folder / "queries.csv", ["query_id", "text", "genre", "mood", "instrument"], texts)

    # Graded judgements: 2 = genre, mood and instrument match; 1 = genre and mood match;
    # judged 0 = a few items that share only the genre or only the mood (the near misses an
    # assessor would have looked at).
    qrels = []
    for qid, (g, m, ins) in zip(query_ids, query_attr):
        near = []
        for iid, (ig, im, iins) in zip(item_ids, item_attr):
            if (ig, im) == (g, m):
                qrels.append([qid, iid, 2 if iins == ins else 1])
            elif ig == g or im == m:
                near.append(iid)
        picks = rng.choice(len(near), size=min(len(near), int(rng.integers(2, 6))), replace=False)
        qrels += [[qid, near[k], 0] for k in sorted(picks)]
    # As the text-to-music benchmarks have it, one judged track per caption: the first item that
    # matches the description in full (grade 2); the others are holes in the ground truth, to
    # fill by judging in the dashboard. The full judgements above are still drawn (and the draws
    # made), so that the embeddings below are those of every earlier version of the sample.
    judged, written = set(), []
    for row in qrels:
        if row[2] == 2 and row[0] not in judged:
            judged.add(row[0])
            written.append(row)
    write_csv(folder / "qrels.csv", ["query_id", "item_id", "relevance"], written)

    # Latent space: one vector per genre, mood and instrument; a piece (or a description) is the
    # weighted sum of its attributes plus its own individuality. Each model sees the latent
    # space through its own random projection plus noise; model B weighs the attributes better
    # and is less noisy.
    latent = 24
    genre_v = rng.standard_normal((len(GENRES), latent))
    mood_v = rng.standard_normal((len(MOODS), latent))
    inst_v = rng.standard_normal((len(INSTRUMENTS), latent))

    def embed(attrs, w, own):
        g, m, i = (np.array(a) for a in zip(*attrs))
        base = w[0] * genre_v[g] + w[1] * mood_v[m] + w[2] * inst_v[i]
        return base + own * rng.standard_normal((len(attrs), latent))

    for name, dim, weights, noise in (("model_a", 32, (1.0, 0.65, 0.5), 0.85),
                                      ("model_b", 48, (1.0, 0.8, 0.7), 0.75)):
        projection = rng.standard_normal((latent, dim)) / np.sqrt(latent)
        queries = embed(query_attr, weights, noise) @ projection
        items = embed(item_attr, weights, noise) @ projection
        queries += 0.3 * noise * rng.standard_normal(queries.shape)
        items += 0.3 * noise * rng.standard_normal(items.shape)
        save_npy(folder / f"{name}_queries.npy", queries.astype(np.float32))
        save_npy(folder / f"{name}_items.npy", items.astype(np.float32))
    return query_attr, item_attr


# ---- 6. Version identification: five systems on one ground truth -----------------------------

VERSION_SYSTEMS = (("baseline", 0.55), ("chroma_dtw", 0.85), ("cqt_net", 1.15),
                   ("cqt_net_aug", 1.2), ("transformer", 1.6))


def make_versions() -> np.ndarray:
    """60 query recordings, each a version of a work with 2–7 other versions among 600 items
    (grade 2 for the work's original recording, 1 for another version, 0 for a few judged
    non-versions); five systems of rising skill rank the top 100 items of each query. Each
    query has a difficulty of its own that every system shares, so systems disagree on some
    queries and all fail on a few — what the leaderboard's heatmap shows."""
    rng = rng_for(6)
    folder = OUT / "versions"
    items = [f"rec{i:03d}" for i in range(600)]
    work_of = rng.integers(0, 150, size=len(items))
    qrels, runs = [], {name: [] for name, _ in VERSION_SYSTEMS}
    queries = rng.choice(len(items), size=60, replace=False)
    for number, query in enumerate(sorted(queries)):
        qid = f"v{number:03d}"
        versions = [i for i in np.flatnonzero(work_of == work_of[query]) if i != query]
        if not versions:   # every query has at least one other version
            versions = [int(rng.integers(0, len(items)))]
            work_of[versions[0]] = work_of[query]
        original = min(versions)
        judged_out = rng.choice(len(items), size=5, replace=False)
        grades = {int(i): 0 for i in judged_out if work_of[i] != work_of[query] and i != query}
        grades.update({int(i): 2 if i == original else 1 for i in versions})
        qrels += [f"{qid} 0 {items[i]} {g}" for i, g in sorted(grades.items())]
        difficulty = rng.uniform(0.2, 1.8)
        for name, skill in VERSION_SYSTEMS:
            signal = np.zeros(len(items))
            signal[versions] = skill / difficulty
            scores = signal + rng.standard_normal(len(items)) * 0.35
            scores[query] = -np.inf   # a query is not its own version
            top = np.argsort(-scores, kind="stable")[:100]
            runs[name] += trec_run_lines(qid, [items[i] for i in top],
                                         [float(scores[i]) for i in top], name)
    write_text(folder / "qrels.txt", qrels)
    for name, lines in runs.items():
        write_text(folder / f"{name}.run", lines)
    return work_of   # each recording's work


# ---- 7. A real taxonomy: TinySOL's instruments (items.csv is extracted from mirdata's index) ----

PITCH_CLASSES = {"C": 0, "C#": 1, "D": 2, "D#": 3, "E": 4, "F": 5, "F#": 6, "G": 7, "G#": 8,
                 "A": 9, "A#": 10, "B": 11}
TINYSOL_SYSTEMS = (("system_a", 1.0, 0.45, 0.7, 0.55), ("system_b", 1.6, 0.45, 0.45, 0.5))
TINYSOL_DEPTH = 200


def midi_number(pitch: str) -> int:
    """``F#1`` -> 30 (middle C, C4, is 60)."""
    return 12 * (int(pitch[-1]) + 1) + PITCH_CLASSES[pitch[:-1]]


def make_tinysol() -> None:
    """Queries are TinySOL's 14 instruments, items its 2,913 notes (family -> instrument); two
    synthetic systems score each note for each instrument: the note's own instrument, a bonus
    for a sibling (same family), a bonus for playing in the query instrument's register (a
    system confuses a viola's low notes with a cello's), and noise that is larger for soft (pp)
    notes."""
    rng = rng_for(7)
    folder = OUT / "tinysol"
    with open(folder / "items.csv", encoding="utf-8") as handle:   # by extract_tinysol.py
        notes = [line.rstrip("\n").split(",") for line in handle][1:]
    ids = [n[0] for n in notes]
    family = np.array([n[2] for n in notes])
    instrument = np.array([n[3] for n in notes])
    pitch = np.array([midi_number(n[5]) for n in notes], dtype=float)
    soft = np.array([n[6] in ("pp", "p") for n in notes])
    leaves = sorted(set(instrument))
    family_of = {leaf: family[instrument == leaf][0] for leaf in leaves}
    rows = [[f, ""] for f in sorted(set(family))] + [[leaf, family_of[leaf]] for leaf in leaves]
    write_csv(folder / "taxonomy.csv", ["class", "parent"], rows)
    write_csv(folder / "annotations.csv", ["item_id", "class"], [[i, c] for i, c in
                                                               zip(ids, instrument)])
    centre = {leaf: pitch[instrument == leaf].mean() for leaf in leaves}
    for tag, own, sibling, register, noise in TINYSOL_SYSTEMS:
        lines = []
        for leaf in leaves:
            score = (own * (instrument == leaf)
                     + sibling * ((family == family_of[leaf]) & (instrument != leaf))
                     + register * np.exp(-0.5 * ((pitch - centre[leaf]) / 8.0) ** 2)
                     + noise * (1 + 0.6 * soft) * rng.standard_normal(len(ids)))
            score = np.round(score, 4)
            top = np.argsort(-score, kind="stable")[:TINYSOL_DEPTH]
            lines += trec_run_lines(leaf, [ids[i] for i in top], [float(score[i]) for i in top],
                                    tag)
        write_text(folder / f"{tag}.run", lines)


# ---- 7. Item and query tables, and clips to listen to -------------------------------------------
# Each writer draws from its own stream (rng_for(13) and up), so the files above stay as they were.

ADJECTIVES = ["Blue", "Silver", "Quiet", "Golden", "Broken", "Northern", "Paper", "Electric",
              "Hollow", "Velvet", "Midnight", "Wild", "Lonely", "Bright", "Distant", "Crimson"]
NOUNS = ["Harbour", "River", "Lanterns", "Morning", "Highway", "Garden", "Echoes", "Stranger",
         "Mountain", "Letters", "Summer", "Horizon", "Windows", "Daydream", "Station", "Tides"]
FIRST = ["Ana", "Tom", "Mira", "Jonas", "Lea", "Omar", "Ines", "Kai", "Rosa", "Felix", "Yuki",
         "Sam", "Nora", "Luca", "Eva", "Theo"]
LAST = ["Ruiz", "Berg", "Okafor", "Lind", "Moreau", "Sato", "Novak", "Haddad", "Costa",
        "Keller", "Dubois", "Park"]
BANDS = ["The Kites", "Paper Boats", "Low Orbit", "The Weavers", "Glass Animals Club",
         "North Quarter", "The Lamplighters", "Static Bloom", "Copper Lane", "The Ferns"]


def titles(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` different made-up song titles."""
    pairs = [f"{a} {n}" for a in ADJECTIVES for n in NOUNS]
    return [pairs[k] for k in rng.choice(len(pairs), size=count, replace=False)]


def artist(rng: np.random.Generator) -> str:
    if rng.random() < 0.3:
        return BANDS[int(rng.integers(len(BANDS)))]
    return f"{FIRST[int(rng.integers(len(FIRST)))]} {LAST[int(rng.integers(len(LAST)))]}"


def listen_covers(clique: np.ndarray, departure: np.ndarray) -> None:
    """One clip per recording: the versions of a work play its melody in their own key, tempo
    and instrument; ``items.csv`` names them (the query is an item: it serves both)."""
    rng = rng_for(13)
    folder = OUT / "covers"
    work_titles = titles(rng, int(clique.max()) + 1)
    melodies = [sounds.work_melody(rng) for _ in work_titles]
    years = rng.integers(1955, 2024, size=len(work_titles))
    rows = []
    for i, (work, depart) in enumerate(zip(clique, departure)):
        item = f"c{i + 1:04d}"
        clip = sounds.cover_version(melodies[work], rng, float(depart))
        sounds.write_wav(folder / "audio" / f"{item}.wav", clip)
        year = int(years[work]) + int(rng.integers(0, 30))
        rows.append([item, work_titles[work], artist(rng), min(year, 2024),
                     f"{len(clip) / sounds.RATE:.2f}", f"audio/{item}.wav"])
    write_csv(folder / "items.csv", ["item_id", "title", "artist", "year", "duration", "audio"],
              rows)


def listen_instruments(leaves: list[str], contains: np.ndarray, salience: np.ndarray) -> None:
    """One clip per excerpt: its instruments play together, each as loud as it is salient."""
    rng = rng_for(14)
    folder = OUT / "instruments"
    rows = []
    names = titles(rng, len(contains))
    for i, row in enumerate(contains):
        item = f"x{i + 1:04d}"
        present = [j for j in np.flatnonzero(row)]
        clip = sounds.instrument_excerpt([leaves[j] for j in present],
                                         [float(salience[i, j]) for j in present], rng)
        sounds.write_wav(folder / "audio" / f"{item}.wav", clip)
        rows.append([item, names[i], artist(rng), "; ".join(leaves[j] for j in present),
                     f"audio/{item}.wav"])
    write_csv(folder / "items.csv", ["item_id", "title", "artist", "instruments", "audio"], rows)


def describe_text2music(item_attr: list) -> None:
    """Titles and attributes of the music items, and a clip of each (its instrument, mood and
    genre, to hear when judging it); the clips draw from a stream of their own."""
    rng = rng_for(15)
    names = titles(rng, len(item_attr))
    rows = [[f"m{i + 1:04d}", names[i], artist(rng), GENRES[g], MOODS[m], INSTRUMENTS[ins]]
            for i, (g, m, ins) in enumerate(item_attr)]
    sound = rng_for(17)
    for row in rows:
        sounds.write_wav(OUT / "text2music" / "audio" / f"{row[0]}.wav",
                         sounds.described_piece(*row[3:6], sound))
        row.append(f"audio/{row[0]}.wav")
    write_csv(OUT / "text2music" / "items.csv",
              ["item_id", "title", "artist", "genre", "mood", "instrument", "audio"], rows)


def describe_versions(work_of: np.ndarray) -> None:
    """Each recording's work title and performer (versions of one work share the title)."""
    rng = rng_for(16)
    work_titles = titles(rng, int(work_of.max()) + 1)
    rows = [[f"rec{i:03d}", work_titles[w], artist(rng)] for i, w in enumerate(work_of)]
    write_csv(OUT / "versions" / "items.csv", ["item_id", "title", "artist"], rows)


def main() -> None:
    make_fmp()
    make_serra()
    listen_covers(*make_covers())
    listen_instruments(*make_instruments())
    describe_text2music(make_text2music()[1])
    describe_versions(make_versions())
    make_tinysol()
    total = 0
    for path in sorted(OUT.rglob("*")):
        if path.is_file() and path.suffix not in (".py", ".md") and "__pycache__" not in path.parts:
            size = path.stat().st_size
            total += size
            print(f"{path.relative_to(OUT.parent)}  {size:,} bytes")
    print(f"total {total:,} bytes")


if __name__ == "__main__":
    main()
