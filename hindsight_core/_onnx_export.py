"""Export a saved BERT model's packed pass to ONNX, in a child process of the one that will run it.

``python -m hindsight_core._onnx_export WEIGHTS FOLDER ATTENTION`` loads the transformers model in
the folder WEIGHTS (the one the serving process loaded it from) with that attention implementation
and writes ``FOLDER/query_pass.onnx`` (:func:`~hindsight_core._onnx_bert.export_packed`). The export runs here,
not on a thread of the serving process, because ``torch.onnx`` changes process-wide state while it
runs: the warnings filters (its tracer hints are silenced) and the "exporting now" flag that
transformers reads, which would change how that process's other threads run the model. It also
leaves about 70 MB behind that this process takes with it when it exits.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Export the model in ``argv[0]`` (default: the command line) into the folder ``argv[1]``
    with attention implementation ``argv[2]``; 0 when the graph is written."""
    weights, folder, attention = (sys.argv[1:] if argv is None else argv)[:3]
    import torch
    from transformers import AutoModel

    from hindsight_core._onnx_bert import GRAPH_FILE, export_packed

    torch.set_num_threads(1)  # a background job: one core, the serving process keeps the other
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's tracer hints, answered by the parent's probe check
        bert = AutoModel.from_pretrained(weights, attn_implementation=attention).eval()
        export_packed(bert, os.path.join(folder, GRAPH_FILE))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
