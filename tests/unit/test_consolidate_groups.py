"""Consolidation's grouping: complete linkage, outcomes kept apart, every unit in one group."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_core.lifecycle.consolidate import _clusters


@pytest.mark.parametrize("seed", range(5))
def test_every_two_members_of_a_group_are_close_and_share_an_outcome(seed):
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(300, 6)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    outcomes = list(rng.choice(np.array([None, "success", "failure"], dtype=object), size=300))
    groups = _clusters([str(i) for i in range(300)], vecs, outcomes, 0.6)
    assert sorted(i for g in groups for i in g) == list(range(300))
    sims = vecs @ vecs.T
    for g in groups:
        assert len({outcomes[i] for i in g}) == 1
        assert all(sims[i, j] >= 0.6 for i in g for j in g if i != j)
    assert max(len(g) for g in groups) > 2  # the data does form groups
    # no two groups could merge: some pair across any two groups is too far apart, or outcomes differ
    for x, gx in enumerate(groups[:40]):
        for gy in groups[x + 1:40]:
            assert outcomes[gx[0]] != outcomes[gy[0]] or sims[np.ix_(gx, gy)].min() < 0.6
