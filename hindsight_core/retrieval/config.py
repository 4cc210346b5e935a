"""Recall configuration: frozen, with named presets; derive variants with ``model_copy``.

Example:
    >>> cfg = RecallConfig()
    >>> cfg.model_copy(update={"mmr_lambda": 0.7}).mmr_lambda
    0.7
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RecallConfig"]


class RecallConfig(BaseModel):
    """Knobs of the recall pipeline. Defaults are the tuned configuration (tuned on LoCoMo dev only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    k: int = Field(10, ge=1, le=1000, description="Hits returned when recall() is given no k.")
    over_fetch: int = Field(100, ge=1, description="Candidates each channel returns before fusion.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant (fusion='rrf').")
    mmr_lambda: float = Field(1.0, ge=0.0, le=1.0, description="1.0 = no diversification.")
    fusion: Literal["zscore", "rrf"] = Field("zscore", description="Weighted z-score fusion of every feature, or plain RRF of dense and keyword.")
    strip_question: bool = Field(True, description="Drop wh-words and auxiliaries from the query text before keyword search.")
    dense_weight: float = Field(1.0, ge=0.0, description="Weight of the cosine similarity.")
    context_weight: float = Field(0.0, ge=0.0, description="Weight of the cosine with the unit read in context (after the unit before it).")
    context_next_weight: float = Field(0.0, ge=0.0, description="Weight of the cosine with the next unit's context window (this unit followed by the next).")
    topic_weight: float = Field(1.0, ge=0.0, description="Weight of the cosine with the query embedded without the names of the "
                                "bank's speakers it contains (0 skips the second query embedding).")
    keyword_weight: float = Field(0.6, ge=0.0, description="Weight of the unit's BM25 score.")
    session_weight: float = Field(0.45, ge=0.0, description="Weight of the BM25 score of the unit's session as a whole.")
    feedback_weight: float = Field(0.0, ge=0.0, description="Weight of keyword pseudo-relevance feedback from the first-stage best units.")
    feedback_seeds: int = Field(3, ge=1, description="First-stage units whose words expand the keyword query.")
    feedback_terms: int = Field(10, ge=1, description="Expansion terms taken from the feedback units.")
    feedback_query_weight: float = Field(0.5, ge=0.0, le=1.0, description="Share of the original query terms in the expanded query.")
    expansion_weight: float = Field(0.5, ge=0.0, description="Keyword query expansion from the bank's own vocabulary "
                                    "(retrieval/expansion.py): an added word's query weight per unit of its cosine with the "
                                    "question word it is near (tuned on LoCoMo dev). The bank's words are learnt in its "
                                    "background queue after captures and kept with its snapshot; a recall embeds only its "
                                    "own words. 0 turns it off.")
    expansion_terms: int = Field(3, ge=1, description="Bank words added per question word, at most.")
    expansion_min_cosine: float = Field(0.5, ge=-1.0, le=1.0, description="Least cosine of an added word with its question word.")
    expansion_max_df: int = Field(50, ge=1, description="Words used by more units than this are never added (chat fillers).")
    aggregate_weight: float = Field(0.0, ge=0.0, description="For a question asking for several things of a kind "
                                    "(channels.asks_for_list), weight of the speaker channel: BM25 of the query's "
                                    "words other than the people it names (plus expansion terms) over those people's "
                                    "turns only (retrieval/channels.speaker_channel). Off by default (0): at 0.5 it "
                                    "moved LoCoMo dev @10 by +0.07 and multi-hop by +1.5 (paired run).")
    aggregate_top: int = Field(30, ge=1, description="Turns the speaker channel adds to the pool.")
    session_top: int = Field(5, ge=1, description="Sessions scored by the session channel.")
    speaker_weight: float = Field(0.9, ge=0.0, description="Weight of 'the query names this unit's speaker' "
                                  "(it carries the person the topic vector leaves out).")
    temporal_weight: float = Field(1.0, ge=0.0, description="Weight of 'the unit's time is in the query's window'.")
    temporal_slack_days: float = Field(2.0, gt=0.0, description="Days over which the temporal score decays outside the window.")
    current_phrase_weight: float = Field(
        1.0, ge=0.0, description="For questions about the current value ('... now?'): weight of the query's "
        "word pairs found in the unit, so the belief about the named subject beats its near-namesakes.")
    present_judge: bool = Field(True, description="Let the learned judge (lifecycle/rival_model.py) decide, where the "
                                "rules cannot, whether a later active statement answers a question about the present "
                                "in place of an earlier one it disagrees with. Fitted with the bundled MiniLM embedder.")
    present_judge_threshold: float | None = Field(
        None, gt=0.0, le=1.0, description="The judge's probability at which the later statement answers; None is the "
        "fitted default (0.9). Lower lets more changes stated without a cue answer and hides more facts that still "
        "hold: on twelve knowledge-update sets written unseen, 0.85 let 19 more of 600 updates answer and lost 4 of "
        "360 look-alikes; on ten sets read while developing, 8 of each (docs/landings.md, landing 51).")
    answer_forms: bool = Field(True, description="When a fact among the candidates changed and the question asks about "
                               "the present, let the facts that hold an answer of the asked form (a person for 'who', "
                               "a status, a role, a time, a frequency, a place for 'where') lead the ten best hits "
                               "(retrieval/answer_forms.py).")
    ranker: Literal["learned", "weighted"] = Field(
        "learned", description="How the final pool is ordered: 'learned' rescores the head of the weighted ranking with "
        "boosted trees fitted on LoCoMo dev (retrieval/learned.py); 'weighted' keeps the weighted sum of features. "
        "Pools smaller than ranker_min_pool, and recalls limited to kinds without 'world' (lessons and skills: "
        "recall_lessons), always use the weighted sum: the trees were fitted on conversation turns.")
    ranker_head: int = Field(100, ge=1, description="Units of the weighted ranking the learned ranker rescores.")
    ranker_min_pool: int = Field(60, ge=1, description="Least pool size the learned ranker is used on: it was fitted on "
                                 "pools of conversation banks (about 100-600 units), whose standardised features a "
                                 "handful of units does not resemble.")
    graph_weight: float = Field(0.18, ge=0.0, description="Weight of the graph channel's spreading activation.")
    graph_seeds: int = Field(20, ge=0, description="First-stage candidates whose entities seed the graph's second hop.")
    graph_entity_cap: int = Field(50, ge=1, description="Entities linked to more units than this do not spread.")
    prev_weight: float = Field(0.3, ge=0.0, description="Share of the previous unit's (same session) score a unit inherits.")
    next_weight: float = Field(0.3, ge=0.0, description="Share of the next unit's (same session) score a unit inherits.")
    expand: int = Field(15, ge=0, description="Graph and neighbour candidates added to the pool.")
    reranker: str | None = Field(None, description="A sentence-transformers CrossEncoder name to rerank the head; off by default.")
    rerank_top: int = Field(30, ge=1, description="Head size the reranker rescores.")
