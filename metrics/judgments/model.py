"""One judgment (:class:`Judgment`) and the name of the dataset it belongs to
(:func:`dataset_digest`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from metrics.data.rows import WHOLE_LIMIT
from metrics.errors import InputError


@dataclass(frozen=True)
class Judgment:
    """A person's grade of one item for one query of one dataset.

    ``dataset`` is the dataset's content hash (:func:`dataset_digest`); ``pool`` says what the
    item was judged from ("depth-10 of bm25,clap", "explorer top 10"). ``time`` (UTC) and ``id``
    are the store's to set: a judgment given to :meth:`JudgmentStore.add` has neither, the one it
    returns has both. A negative grade is refused: trec_eval reads it as "pooled, not judged",
    which is what an item without a judgment already is."""

    dataset: str
    query: str
    item: str
    grade: int
    judge: str
    pool: str
    time: datetime | None = None
    id: int | None = None

    def __post_init__(self):
        for field in ("dataset", "query", "item", "judge"):
            value = getattr(self, field)
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"a judgment needs a {field} (got {value!r})")
        if not isinstance(self.pool, str):
            raise InputError(f"a judgment's pool is text (got {self.pool!r})")
        if isinstance(self.grade, bool) or not isinstance(self.grade, int) and not (
                hasattr(self.grade, "is_integer") and float(self.grade).is_integer()):
            raise InputError(f"a grade is a whole number (got {self.grade!r})")
        grade = int(self.grade)
        if not 0 <= grade <= WHOLE_LIMIT:
            raise InputError(f"grade {grade} cannot be a judgment: grades are 0 (not relevant) "
                             "and up; a negative grade means pooled, not judged")
        object.__setattr__(self, "grade", grade)


def dataset_digest(*blobs: bytes) -> str:
    """The content hash that names a dataset in the judgments' database: the SHA-256 (hex) of
    one file's bytes (what ``sha256sum FILE`` prints), or of several files' digests, each on a
    line, in the order given. Judgments belong to the ground truth they grow, so the dashboard
    and the command line name a dataset by its ground-truth file alone: adding a run keeps its
    judgments."""
    if not blobs:
        raise InputError("a dataset's digest needs at least one file")
    if len(blobs) == 1:
        return hashlib.sha256(bytes(blobs[0])).hexdigest()
    lines = "".join(hashlib.sha256(bytes(b)).hexdigest() + "\n" for b in blobs)
    return hashlib.sha256(lines.encode()).hexdigest()
