"""Bank options merge deeply into the engine's config (issue 11: options merge deeply)."""

from __future__ import annotations

import pytest

from hindsight_core import InvalidInputError, MemoryEngine
from hindsight_core.config import BankConfig, LifecycleConfig
from hindsight_core.testing import HashEmbedder


def test_a_nested_option_keeps_the_engines_other_settings():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32),
                                    config=BankConfig(lifecycle=LifecycleConfig(active_budget=300, min_cluster=4)))
    bank = engine.bank("x", lifecycle={"consolidate_every": 0})
    assert bank.config.lifecycle.consolidate_every == 0
    assert bank.config.lifecycle.active_budget == 300 and bank.config.lifecycle.min_cluster == 4
    assert engine.config.lifecycle.consolidate_every == 50  # the engine's config is not changed
    engine.close()


def test_a_config_object_replaces_the_section_and_bad_keys_are_refused():
    engine = MemoryEngine.ephemeral(embedder=HashEmbedder(dim=32),
                                    config=BankConfig(lifecycle=LifecycleConfig(active_budget=300)))
    assert engine.bank("x", lifecycle=LifecycleConfig(consolidate_every=0)).config.lifecycle.active_budget == 5_000
    with pytest.raises(InvalidInputError, match="consolidate_evry"):
        engine.bank("x", lifecycle={"consolidate_evry": 0})
    engine.close()
