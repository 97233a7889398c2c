"""mx.rnn's data helpers: encode_sentences (tokens to integer ids) and
BucketSentenceIter (language-model batches grouped by sentence length)."""
import bisect
import random

import numpy as np

from ..base import MXNetError
from ..io import DataIter, DataBatch, DataDesc
from .. import ndarray

__all__ = ["encode_sentences", "BucketSentenceIter"]


class _UnknownTokenError(MXNetError, AssertionError):
    """A token outside a given vocabulary with no unknown_token to map it to
    (an assert in MXNet, so also an AssertionError)."""


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n", start_label=0,
                     unknown_token=None):
    """(encoded sentences, vocab): each token replaced by its id.

    Without ``vocab`` one is built: ``invalid_key`` -> ``invalid_label``, and
    each new token the next id from ``start_label`` (skipping invalid_label).
    With ``vocab``, a token it lacks is an error unless ``unknown_token`` is
    given. The vocab is updated in place and returned.

    MXNet 1.9.1's numbering is kept exactly, so ids match models trained
    with it: with unknown_token, every unseen token re-points unknown_token
    at the next id (counting from start_label), and that id is the token's.
    """
    next_id = start_label
    building = vocab is None
    if building:
        vocab = {invalid_key: invalid_label}
    encoded = []
    for sentence in sentences:
        ids = []
        for token in sentence:
            if token not in vocab:
                if not (building or unknown_token):
                    raise _UnknownTokenError("Unknown token %s" % token)
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    token = unknown_token
                vocab[token] = next_id
                next_id += 1
            ids.append(vocab[token])
        encoded.append(ids)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of encoded sentences for a language model, each batch from
    one bucket (sentences padded with ``invalid_label`` up to the bucket's
    length); the label is the data shifted one step left.

    buckets: the lengths (sorted in place, as MXNet does); by default every
    length that at least ``batch_size`` sentences have. Sentences longer
    than the largest bucket are dropped (and counted in a printed warning,
    as MXNet prints it); a bucket's leftover sentences that do not fill a
    batch are not served. layout: 'NT' (batch, time) or 'TN'. Each reset
    shuffles the batch order (Python's random) and each bucket's sentences
    (numpy's global generator), the same calls MXNet makes, so the same
    seeds give the same batches.
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name="data",
                 label_name="softmax_label", dtype="float32", layout="NT"):
        super().__init__()
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
                or batch_size < 1:
            raise ValueError("BucketSentenceIter: batch_size must be a positive integer, got %r"
                             % (batch_size,))
        if not isinstance(layout, str) or layout.find("N") not in (0, 1):
            raise ValueError("Invalid layout %s: Must by NT (batch major) or TN (time major)"
                             % (layout,))
        if not buckets:
            counts = np.bincount([len(s) for s in sentences]) if len(sentences) else []
            buckets = [length for length, n in enumerate(counts) if n >= batch_size]
        buckets.sort()

        discarded = 0
        rows = [[] for _ in buckets]
        used = [False] * len(buckets)
        for sentence in sentences:
            b = bisect.bisect_left(buckets, len(sentence))
            if b == len(buckets):
                discarded += 1
                continue
            used[b] = True
            padded = np.full((buckets[b],), invalid_label, dtype=dtype)
            padded[:len(sentence)] = sentence
            rows[b].append(padded)
        # Buckets no sentence fell in are dropped.
        buckets = [length for length, u in zip(buckets, used) if u]
        self.data = [np.asarray(r, dtype=dtype) for r in rows if r]
        print("WARNING: discarded %d sentences longer than the largest bucket." % discarded)
        if not buckets:
            raise ValueError("BucketSentenceIter: no sentence fits a bucket (buckets: every "
                             "length at least batch_size=%d sentences have, unless given)"
                             % batch_size)

        self.batch_size = batch_size
        self.buckets = buckets
        self.data_name = data_name
        self.label_name = label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.nddata = []
        self.ndlabel = []
        self.major_axis = layout.find("N")
        self.layout = layout
        self.default_bucket_key = max(buckets)

        shape = (batch_size, self.default_bucket_key) if self.major_axis == 0 \
            else (self.default_bucket_key, batch_size)
        self.provide_data = [DataDesc(name=self.data_name, shape=shape, layout=self.layout)]
        self.provide_label = [DataDesc(name=self.label_name, shape=shape, layout=self.layout)]

        # (bucket, first row) of every full batch.
        self.idx = []
        for b, bucket_rows in enumerate(self.data):
            self.idx.extend((b, start) for start in
                            range(0, len(bucket_rows) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Back to the first batch, with the batches and sentences reshuffled."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for bucket_rows in self.data:
            np.random.shuffle(bucket_rows)
        self.nddata = []
        self.ndlabel = []
        for bucket_rows in self.data:
            label = np.empty_like(bucket_rows)
            label[:, :-1] = bucket_rows[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(bucket_rows, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next batch (bucket_key: its bucket's length; pad 0)."""
        if self.curr_idx == len(self.idx):
            raise StopIteration
        b, start = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[b][start:start + self.batch_size]
        label = self.ndlabel[b][start:start + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[b],
                         provide_data=[DataDesc(name=self.data_name, shape=data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(name=self.label_name, shape=label.shape,
                                                 layout=self.layout)])
