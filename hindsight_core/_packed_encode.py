"""Several short texts in one unpadded forward pass of a BERT sentence-transformer (sequence packing).

A recall embeds its question, the question without the speakers it names (retrieval/topic.py) and
the question's words the bank does not use yet (retrieval/expansion.py) in one model call. Batched,
every text is padded to the longest, so a one-word text costs the model as much as the question:
on one busy core the bundled model takes about 8 ms a call plus 0.27 ms per token position, and a
question with three new words fills 5 x 15 positions where its texts hold 36 tokens.

Packed, the texts' tokens sit end to end in one sequence; a block-diagonal attention mask lets each
token see only its own text, and positions restart at 0 for each text, so each text is encoded as
it is alone. Each vector equals the padded batch's up to float32 rounding (at most a few 1e-7 per
component, measured against ``SentenceTransformer.encode``). Only a call that saves at least
:data:`PACK_MIN_SAVED` padded positions is packed (a question and its topic, about the same length,
are padded as before), and only a BERT-family model whose pipeline is exactly transformer, mean
pooling, normalisation (the bundled all-MiniLM-L6-v2); any other model returns None here and is
encoded as it always was. The pass runs on ONNX Runtime once that is built in this process
(:mod:`~hindsight_core._onnx_bert`; then every small call of up to :data:`PACK_MAX_TOKENS` tokens is
packed, a single text too), else on the model's traced graph when it has one
(:mod:`~hindsight_core._traced_bert`); all three give the same vectors, without holding the GIL.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from hindsight_core._onnx_bert import onnx_packed
from hindsight_core._traced_bert import encode_packed_ids, mean_pooled_bert, packed_inputs, unpadded_ids

__all__ = ["encode_packed", "PACK_MIN_SAVED", "PACK_MAX_TOKENS"]

#: A call is packed only when padding would add at least this many token positions (about 2 ms of
#: model time at 0.27 ms each): below it the model's own ``encode`` runs, unchanged.
PACK_MIN_SAVED = 8
#: Packed sequences stay at most this long: attention grows with the square of the packed length,
#: while padded batches grow with the square of each text's own length.
PACK_MAX_TOKENS = 256


def encode_packed(model: Any, texts: Sequence[str]) -> np.ndarray | None:
    """Unit-normalised float32 vectors of ``texts`` from one packed forward pass of ``model`` (a
    ``SentenceTransformer``), or None when packing does not apply (then call ``model.encode``): on
    ONNX Runtime when that is ready, else only when packing saves :data:`PACK_MIN_SAVED` positions."""
    if not mean_pooled_bert(model):
        return None
    fast = onnx_packed(model)
    if fast is None and len(texts) < 2:
        return None
    transformer = model[0]
    ids = unpadded_ids(transformer, texts, transformer.max_seq_length)  # not the tokenizer model.encode pads with
    lens = [len(x) for x in ids]
    total = sum(lens)
    if total > PACK_MAX_TOKENS:
        return None
    if fast is not None:
        return fast(*(x.numpy() for x in packed_inputs(ids)))
    if len(lens) * max(lens) - total < PACK_MIN_SAVED:
        return None
    return encode_packed_ids(model, ids)
