"""PII never reaches storage or the embedder: the whole Chroma folder is grepped, byte by byte,
for planted secrets after captures, batches, merges, corroboration updates, episodes, directives
and deletes; and redaction is configurable per bank."""

from __future__ import annotations

from pathlib import Path

from hindsight_core import MemoryEngine, PIIConfig
from hindsight_core.episodes import Episode, TraceStep
from hindsight_core.testing import HashEmbedder

SECRETS = {
    "email": "jane.doe.planted@example.com",
    "phone": "+1 (415) 555-0199",
    "card": "4111 1111 1111 1111",
    "id_number": "078-05-1120",
    "iban": "DE89 3704 0044 0532 0130 00",
    "secret": "sk-proj-PLANTEDkey1234567890abcdef",
    "ip_address": "10.20.30.40",
}


class Spy(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=64)
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def _blob(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in path.rglob("*") if p.is_file())


def _variants(value: str) -> list[bytes]:
    return [value.encode(), value.replace(" ", "").encode()]


def test_planted_secrets_never_reach_the_folder_or_the_embedder(tmp_path):
    path = tmp_path / "store"
    spy = Spy()
    engine = MemoryEngine(path, embedder=spy)
    bank = engine.bank("u")
    s = SECRETS
    bank.capture(f"Jane's email is {s['email']} and her phone is {s['phone']}.", session_id="s1",
                 metadata={"contact": s["email"], "nested": {"card": s["card"], "list": [s["id_number"]]}})
    first = bank.capture(f"Remember: the deploy token is {s['secret']} for host {s['ip_address']}.",
                         metadata={"ip": s["ip_address"]})
    # a near-duplicate is merged: its metadata goes into `mentions` of the existing unit (an update)
    again = bank.capture(f"Remember: the deploy token is {s['secret']} for host {s['ip_address']}.",
                         metadata={"iban": s["iban"], "who": s["email"]})
    assert again.merged and again.unit_id == first.unit_id
    bank.capture_many([f"Refund to IBAN {s['iban']} approved.", {"text": f"SSN on file: {s['id_number']}.",
                                                                   "metadata": {"phone": s["phone"]}}])
    draft = bank.capture(f"The user's card is {s['card']}.", source="llm", metadata={"card": s["card"]})
    promoted = bank.capture(f"The user's card is {s['card']}.", source="user", metadata={"mail": s["email"]})
    assert promoted.unit_id == draft.unit_id  # corroboration rewrote the draft's record
    episode = Episode.from_steps([
        TraceStep(kind="user", text=f"Email the invoice to {s['email']}"),
        TraceStep(kind="tool_call", text=f"send(to='{s['email']}', card='{s['card']}')", tool="send"),
        TraceStep(kind="tool_error", text=f"SMTP refused {s['email']} from {s['ip_address']}", tool="send"),
    ], metadata={"phone": s["phone"]})
    bank.end_episode(episode, "failure", feedback=f"call me at {s['phone']}")
    bank.set_directive(f"Never send invoices to {s['email']}.", metadata={"owner": s["email"]})
    gone = bank.capture(f"Temporary note with {s['secret']}.")
    bank.delete(gone.unit_id)
    units = list(bank.units())
    assert all("pii_redacted" in u.flags for u in units if u.kind.value in ("world", "directive"))
    engine.close()

    blob = _blob(path)
    for kind, value in SECRETS.items():
        for form in _variants(value):
            assert form not in blob, f"planted {kind} found in the Chroma folder"
        assert not any(value in t for t in spy.seen), f"planted {kind} was sent to the embedder"
    assert b"[EMAIL]" in blob and b"[SECRET]" in blob  # the placeholders are what got stored


def test_redaction_is_configurable_per_bank(tmp_path):
    path = tmp_path / "store"
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    text = f"Reach me at {SECRETS['email']} or {SECRETS['phone']}."
    only_email = engine.bank("mail-only", pii=PIIConfig(kinds=frozenset({"email"}))).capture(text)
    assert only_email.redactions == ("email",)
    assert engine.bank("mail-only").get(only_email.unit_id).text == f"Reach me at [EMAIL] or {SECRETS['phone']}."
    raw = engine.bank("raw", pii=PIIConfig(enabled=False)).capture(text)
    assert raw.redactions == () and engine.bank("raw").get(raw.unit_id).text == text
    engine.close()
    blob = _blob(path)
    assert SECRETS["phone"].encode() in blob  # proves the grep sees what a bank chose to keep
    engine = MemoryEngine(path, embedder=HashEmbedder(dim=64))
    engine.delete_bank("raw")
    engine.delete_bank("mail-only")
    engine.close()
