"""Task signatures: what a task *does* (action class, object type, tool, error class), not its words.

A lesson learned from "Deploy the api service to production" must reach "Push the hotfix live",
though the two share no word. Both say the same thing in a coarser vocabulary: the action class
``deploy`` applied to an object of type ``software``. A :class:`TaskSignature` is that coarse
description; :func:`goal_signature` reads it from a new goal (all that is known before planning),
:func:`lesson_signature` from what a stored lesson already holds (its goal, the tools it names,
the error it quotes), so old lessons need no migration.

The vocabulary is a :class:`Lexicon`: verb classes for common agent operations (deploy, rotate
credentials, book travel, refund, notify, delete, restart, ...) and object types (software,
credential, travel, payment, message, ...), each a list of words and short phrases (``"push * live"``:
up to three words in the gap). :data:`DEFAULT_LEXICON` is general, not tied to any benchmark's
wording; extend it for your domain with :meth:`Lexicon.extend` and set it in a :class:`LessonMatch`,
per bank (``BankConfig(lessons=LessonMatch(lexicon=...))``, ``engine.bank("ops", lessons={...})``: the
adapters then use it too) or per call (``bank.recall_context(goal, lesson_match=...)``).

Two signatures match when they share an action class *and* an object type (the tool's name counts
for both: ``deploy_service`` is ``deploy`` + ``software``). One shared class alone is too weak:
"Translate 'good morning' into Spanish" shares the action of "Translate the supplier contract into
German" but no object, and must not receive its lesson.

Example:
    >>> a = goal_signature("Push the hotfix live")
    >>> b = goal_signature("Deploy the api service to production", tools=["deploy_service"])
    >>> "deploy" in a.actions, sorted(a.objects), signatures_match(a, b)
    (True, ['software'], True)
    >>> signatures_match(goal_signature("Reserve a plane ticket to Tokyo for Ken"),
    ...                  goal_signature("Book a flight from Berlin to Lisbon for Maria"))
    True
    >>> signatures_match(goal_signature("Translate 'good morning' into Spanish"),
    ...                  goal_signature("Translate the supplier contract into German"))
    False
    >>> error_class("PermissionError: deploys need a change ticket")
    'permission'
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from hindsight_core.models import MemoryUnit

__all__ = [
    "ACTIONS",
    "OBJECTS",
    "IMPLIED_OBJECTS",
    "ERROR_CLASSES",
    "Lexicon",
    "DEFAULT_LEXICON",
    "LessonMatch",
    "DEFAULT_LESSON_MATCH",
    "PRECISE_BARS",
    "TaskSignature",
    "goal_signature",
    "lesson_goal",
    "lesson_tools",
    "lesson_signature",
    "signature_query",
    "signatures_match",
    "error_class",
    "is_noop_lesson",
]

#: Verb classes of common agent operations. A word may sit in several classes ("extend": scale a
#: disk or renew a certificate); the object type then decides. Phrases match on word stems, ``*`` is
#: a gap of up to four words. A single word counts as an action only where it is not used as a
#: noun ("a good book", "the release": after a determiner it names a thing), unless it is marked as a
#: noun cue with a leading ``=`` ("a spreadsheet of our clients" asks for an export).
ACTIONS: dict[str, tuple[str, ...]] = {
    "deploy": ("deploy", "redeploy", "release", "ship", "roll out", "=rollout", "go live", "push * live",
               "push * prod", "push * production", "promote * prod", "promote * production", "launch",
               "put * live", "make * live", "roll * out", "get * out to", "push * out", "into production",
               "into prod", "to production", "to prod"),
    "rollback": ("roll back", "rollback", "revert", "downgrade", "undo * deploy"),
    "restart": ("restart", "reboot", "bounce", "kick", "recycle", "relaunch", "respawn", "reload", "power cycle",
                "bring * back up", "come back up", "revive", "cycle"),
    "start_stop": ("start", "stop", "shut down", "shutdown", "halt", "pause", "resume", "kill", "suspend"),
    "scale": ("scale", "autoscale", "resize", "grow", "expand", "extend", "enlarge", "shrink", "increase",
              "add more", "add capacity", "more capacity", "more nodes", "more instances", "more replicas",
              "add storage", "add space", "running out of space", "out of space"),
    "renew_credential": ("rotate", "roll", "renew", "regenerate", "reissue", "refresh", "cycle", "reset",
                         "change", "replace", "recover", "expire", "extend", "new", "fresh", "locked out",
                         "forgot", "get back into", "revoke", "swap", "update", "set * new"),
    "grant_access": ("invite", "onboard", "provision", "grant", "give access", "add * to", "let * join",
                     "sign up", "register", "create", "set up", "give * login", "give * account",
                     "give * access", "enrol",
                     "enroll"),
    "revoke_access": ("offboard", "deactivate", "disable", "revoke", "remove access", "lock", "ban"),
    "create": ("create", "make", "set up", "setup", "add", "open", "new", "draw up", "draft", "start"),
    "delete": ("delete", "remove", "drop", "purge", "clean up", "clean out", "cleanup", "wipe", "erase",
               "get rid of", "prune", "truncate", "destroy", "discard", "tear down", "trash", "clear out"),
    "book": ("book", "reserve", "=reservation", "lock in", "hold", "get * on * plane", "get * on * flight",
             "get * on * train", "fly", "somewhere to stay", "arrange", "buy * ticket", "purchase * ticket",
             "get * ticket"),
    "cancel": ("cancel", "call off", "undo", "terminate", "end", "stop", "unsubscribe", "drop", "opt out",
               "won't travel", "not travel", "=cancellation"),
    "buy": ("order", "buy", "purchase", "procure", "restock", "reorder", "top up", "stock up", "get more",
            "get some", "we're out of", "run out of", "ran out of", "acquire"),
    "charge": ("charge", "bill", "invoice", "collect", "take payment", "debit", "payment from"),
    "refund": ("refund", "reimburse", "pay back", "paid back", "money back", "reverse", "return * payment",
               "credit back", "chargeback", "give * back"),
    "claim_expense": ("=expense", "claim", "claim back", "=reimbursement", "reimburse", "paid back", "pay back",
                      "submit * costs"),
    "notify": ("send", "email", "mail", "text", "sms", "message", "notify", "tell", "let * know", "inform",
               "announce", "ping", "page", "alert", "broadcast", "remind", "post", "share", "drop * note",
               "contact", "reach out", "write to", "dm"),
    "publish": ("publish", "post", "put * on * website", "put * online", "make * public", "release",
                "go live", "unpublish", "put * on * site", "put * on * blog"),
    "query_data": ("query", "count", "how many", "how much", "total", "sum", "aggregate", "pull * number",
                   "look up", "lookup", "select", "calculate", "average"),
    "report": ("=report", "generate", "produce", "compile", "build", "prepare", "summarise", "summarize",
               "=dashboard"),
    "export": ("export", "dump", "download", "extract", "=spreadsheet", "=csv", "pull out"),
    "upload": ("upload", "import", "attach", "put * on * drive", "put * in * drive", "store", "save * to",
               "save * in", "transfer", "put * on", "put * in"),
    "backup": ("=backup", "back up", "=snapshot", "copy", "archive", "stash", "cold storage", "long-term storage",
               "retain", "preserve", "safety copy", "ship * off to"),
    "schedule": ("schedule", "reschedule", "arrange", "set up * meeting", "set up * call", "put * in * calendar",
                 "plan", "=calendar", "book * meeting", "book * room", "=catch-up", "sync", "=appointment",
                 "every night", "nightly", "recurring"),
    "translate": ("translate", "=translation", "localise", "localize", "put * into", "render * in", "in french",
                  "in german", "in spanish", "in japanese", "in italian", "in chinese", "in english",
                  "in portuguese", "into french", "into german", "into spanish", "into japanese"),
    "migrate": ("migrate", "=migration", "apply * schema", "alter * table", "upgrade * schema", "move * to"),
    "integrate_code": ("merge", "land", "integrate", "squash", "rebase", "push", "commit", "sync", "publish",
                       "send * up", "get * into", "check in", "cherry-pick"),
    "route_network": ("point", "repoint", "switch over", "switch * to", "route", "resolve", "map", "redirect",
                      "change where"),
    "train_model": ("train", "retrain", "fit", "fine-tune", "finetune", "=training", "learn", "kick off * run"),
    "fetch_info": ("fetch", "get", "check", "look up", "find", "=forecast", "=status", "will it", "what * expect",
                   "where is", "where exactly", "track"),
    "locate": ("geocode", "locate", "=coordinates", "=latitude", "=longitude", "lat/long", "on the map", "where * is"),
    "update": ("update", "edit", "modify", "change", "fix", "correct", "patch", "amend", "tweak", "adjust"),
    "install": ("install", "uninstall", "upgrade", "set up * package"),
    "pay": ("pay", "wire", "transfer * money", "send * money", "remit", "settle", "pay out", "payout", "top up"),
    "ship_parcel": ("ship", "dispatch", "deliver", "courier", "send * parcel", "send * package", "mail * parcel",
                    "post * parcel"),
    "resolve_ticket": ("close", "resolve", "mark * done", "mark * fixed", "mark * resolved", "triage", "assign",
                       "reopen", "escalate", "file * bug", "open * ticket", "raise * ticket", "log * ticket"),
    "approve": ("approve", "sign off", "authorise", "authorize", "sign", "reject", "deny", "countersign"),
    "test_build": ("test", "build", "compile", "lint", "rebuild", "run * tests", "=ci", "=pipeline", "benchmark"),
    "move_file": ("move", "rename", "relocate", "copy", "organise", "organize", "sort * into"),
    "run_job": ("run", "execute", "trigger", "kick off", "start * job", "launch * job", "rerun"),
}

#: Actions whose verbs are specific enough to name their object type themselves ("Reimburse Jane for
#: the cancelled workshop" is about a payment though it names none).
IMPLIED_OBJECTS: dict[str, str] = {"refund": "payment", "claim_expense": "expense", "backup": "backup",
                                   "train_model": "model", "locate": "location"}

#: Object types. ``*`` as in :data:`ACTIONS`.
OBJECTS: dict[str, tuple[str, ...]] = {
    "software": ("service", "api", "app", "application", "build", "release", "version", "hotfix", "patch",
                 "deployment", "gateway", "backend", "frontend", "microservice", "code", "feature", "site",
                 "website", "webapp", "binary", "image", "artifact", "package", "fix"),
    "compute": ("server", "pod", "container", "node", "worker", "process", "instance", "vm", "machine", "host",
                "cluster", "consumer", "scheduler", "daemon", "replica", "job", "cron", "queue", "lambda",
                "function", "capacity", "peak", "traffic"),
    "storage": ("disk", "volume", "drive", "storage", "space", "partition", "bucket", "nas", "filesystem", "ssd",
                "tb", "gb"),
    "credential": ("password", "passphrase", "passcode", "pin", "token", "key", "secret", "credential", "cert",
                   "certificate", "ssl", "tls", "https", "login", "2fa", "mfa", "keypair", "api key"),
    "account": ("account", "user", "login", "member", "guest", "employee", "contractor", "intern", "hire",
                "access", "seat", "profile", "identity", "portal", "workspace", "consultant", "freelancer",
                "auditor", "newcomer", "staffer"),
    "travel": ("flight", "plane", "airfare", "airline", "plane ticket", "train ticket", "trip", "hotel", "room",
               "accommodation", "lodging", "stay", "train", "rental car", "car rental", "booking", "reservation",
               "airbnb", "hostel", "travel", "fly", "itinerary", "visa"),
    "payment": ("payment", "charge", "card", "credit card", "refund", "money", "invoice", "bill", "fee",
                "subscription", "plan", "membership", "purchase", "transaction", "receipt", "renewal", "upgrade",
                "price", "amount", "payout", "order", "buyer", "customer"),
    "expense": ("expense", "expenses", "receipt", "cost", "costs", "spent", "spend", "fee", "fees", "reimbursement",
                "per diem", "mileage", "taxi", "dinner"),
    "message": ("email", "mail", "message", "text", "sms", "notification", "newsletter", "announcement", "note",
                "chat", "slack", "teams", "channel", "page", "phone", "dm", "memo", "everyone", "staff", "team",
                "employees", "company", "customers", "subscribers", "on-call", "on call", "news"),
    "content": ("post", "blog", "article", "page", "announcement", "write-up", "writeup", "tutorial", "docs",
                "website", "newsletter", "press release", "story", "changelog", "wiki"),
    "data": ("database", "db", "table", "query", "record", "row", "signup", "revenue", "data store", "datastore",
             "warehouse", "dataset", "data", "crm", "sql", "postgres", "mysql", "snowflake", "bigquery",
             "subscribers", "orders", "metrics", "analytics", "schema", "index", "elasticsearch"),
    "report": ("report", "summary", "deck", "dashboard", "figures", "numbers", "earnings", "kpi", "statement",
               "financials", "financial"),
    "file": ("file", "document", "pdf", "contract", "agreement", "nda", "csv", "dump", "folder", "directory",
             "attachment", "spreadsheet", "upload", "backup", "lease", "terms", "license", "scan", "doc", "docx",
             "export"),
    "logs": ("log", "logs", "audit trail", "access log", "trace", "traces", "event log", "syslog"),
    "backup": ("backup", "snapshot", "copy", "archive", "safety copy"),
    "contacts": ("customer list", "contacts", "clients", "customers", "leads", "mailing list", "contact list",
                 "crm", "everyone in the customer"),
    "vcs": ("commit", "branch", "pull request", "pr", "merge request", "mr", "changes", "repo", "repository",
            "trunk", "main", "master", "remote", "origin", "github", "gitlab", "tag"),
    "calendar": ("meeting", "call", "sync", "catch-up", "catchup", "appointment", "calendar", "event", "standup",
                 "session", "interview", "workshop", "1:1", "one-on-one"),
    "network": ("dns", "record", "cname", "hostname", "domain", "ip", "load balancer", "url", "route", "www",
                "a record", "mx", "subdomain", "nameserver"),
    "model": ("model", "classifier", "network", "recommender", "predictor", "embedding", "training run",
              "regressor", "llm", "weights", "neural"),
    "weather": ("weather", "forecast", "rain", "temperature", "snow", "wind", "sunny", "storm"),
    "location": ("address", "coordinates", "latitude", "longitude", "lat/long", "map", "location", "gps",
                 "street"),
    "supplies": ("supplies", "paper", "toner", "coffee", "marker", "laptop", "monitor", "keyboard", "hardware",
                 "equipment", "chair", "desk", "headset", "macbook", "cartridge", "pods", "stationery", "mouse"),
    "ticket": ("ticket", "issue", "bug", "incident", "jira", "case", "story", "task", "support request"),
    "parcel": ("parcel", "package", "shipment", "delivery", "box", "courier", "tracking number"),
    "vendor": ("vendor", "supplier", "contractor", "freelancer", "payee", "landlord", "payroll", "salary",
               "salaries", "wage"),
    "language": (),  # languages are cues of the action ``translate``, not objects of it
}

#: Error classes, first match wins (read from the error a lesson quotes).
ERROR_CLASSES: tuple[tuple[str, str], ...] = (
    ("rate_limit", r"rate.?limit|too many requests|\b429\b|throttl"),
    ("timeout", r"time[d ]?out|deadline exceeded|\b504\b"),
    ("quota", r"quota|limit is|exceeds? (?:the )?(?:limit|budget)|insufficient|out of memory|capacity"),
    ("permission", r"permission|forbidden|denied|unauthori[sz]ed|not allowed|\b40[13]\b|approval|requires? .*ticket"),
    ("not_found", r"not found|no such|unknown|does not exist|\b404\b|missing"),
    ("conflict", r"conflict|already exists|protected|locked|rejected|\b409\b"),
    ("unavailable", r"unavailable|unreachable|connection|refused|\b50[023]\b"),
    ("invalid_input", r"invalid|required|requires?|must|need|validation|valueerror|expected|policy"),
)


class Lexicon(BaseModel):
    """Action classes and object types, each a tuple of words and phrases (see the module docstring).

    Example:
        >>> lex = DEFAULT_LEXICON.extend(actions={"irrigate": ("water", "irrigate")},
        ...                              objects={"garden": ("lawn", "garden", "plants")})
        >>> sig = goal_signature("Irrigate the lawn", lexicon=lex)
        >>> sorted(sig.actions), sorted(sig.objects)
        (['irrigate'], ['garden'])
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    actions: Mapping[str, tuple[str, ...]] = Field(default_factory=lambda: dict(ACTIONS),
                                                   description="Action class -> words and phrases.")
    objects: Mapping[str, tuple[str, ...]] = Field(default_factory=lambda: dict(OBJECTS),
                                                   description="Object type -> words and phrases.")

    def extend(self, *, actions: Mapping[str, Iterable[str]] | None = None,
               objects: Mapping[str, Iterable[str]] | None = None) -> "Lexicon":
        """A new lexicon with more words for existing classes or new classes (nothing is removed)."""
        def merged(base: Mapping[str, tuple[str, ...]], more: Mapping[str, Iterable[str]] | None) -> dict:
            out = {k: tuple(v) for k, v in base.items()}
            for key, words in (more or {}).items():
                out[key] = tuple(dict.fromkeys((*out.get(key, ()), *words)))
            return out

        return Lexicon(actions=merged(self.actions, actions), objects=merged(self.objects, objects))

    def key(self) -> tuple:
        """A hashable identity (compiled patterns are cached per lexicon)."""
        return (tuple(sorted(self.actions.items())), tuple(sorted(self.objects.items())))


DEFAULT_LEXICON = Lexicon()


class LessonMatch(BaseModel):
    """How :func:`hindsight_core.context.recall_context` matches lessons to a new goal.

    Example:
        >>> DEFAULT_LESSON_MATCH.model_copy(update={"enabled": False}).enabled
        False
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = Field(True, description="Match by task signature besides the goal's words (False: words only).")
    lexicon: Lexicon | None = Field(None, description="Action classes and object types (None: DEFAULT_LEXICON; "
                                                      "kept None so a bank config stays small to copy).")
    signature_bonus: float = Field(
        0.3, ge=0.0, le=1.0,
        description="Added to a lesson's similarity when its signature matches the goal's: a shared action "
                    "class and object type is stronger evidence of the same task than a dense cosine of "
                    "0.3-0.5, which unrelated lessons of a busy bank also reach.")
    failure_bonus: float = Field(
        0.1, ge=0.0, le=1.0,
        description="Added to a failure (or partial) lesson's relevance: it names what to avoid, whereas the "
                    "recipe of a similar task that worked is weaker evidence for this one (lessons about one "
                    "task already put failures first; this does the same across tasks of one kind).")
    demote_noops: bool = Field(True, description="Lessons of runs that did nothing useful rank after real lessons, "
                                                 "and are shown only when at least ``noop_min_similarity`` close.")
    noop_min_similarity: float = Field(
        0.5, ge=0.0, le=1.0,
        description="Dense cosine a lesson or episode of a no-op run needs to be shown: it holds no recipe, so it "
                    "helps only when the same request comes back (a rephrasing of one question is at least this "
                    "close with all-MiniLM-L6-v2; a question of another topic rarely is).")
    pool: int = Field(20, ge=1, le=1000, description="Lessons read per recall before matching (each of the two "
                                                      "recalls: the goal, and its signature's words).")
    gate_by_request_kind: bool = Field(
        True, description="A request that only asks (a question, a lookup, a writing task: "
                          ":func:`hindsight_core.request_kinds.request_kind`) gets no lesson or episode of a tool "
                          "that changes things: it would make no such call, and the lesson would steer it wrong.")
    min_similarity: float = Field(
        0.3, ge=0.0, le=1.0,
        description="Dense cosine of a lesson's (or an episode's) text to the request that matches it "
                    "(:data:`hindsight_core.context.LESSON_MIN_SIMILARITY` by default).")
    goal_min_similarity: float = Field(
        0.3, ge=0.0, le=1.0,
        description="Dense cosine of the request to a lesson's goal alone that matches it.")
    signature_min_similarity: float = Field(
        0.0, ge=0.0, le=1.0,
        description="Dense cosine a lesson matched by its signature alone (below the other bars) still needs.")
    question_min_similarity: float = Field(
        0.35, ge=0.0, le=1.0,
        description="Dense cosine a lesson of a tool that only reads needs to reach a request that only asks "
                    "(with ``gate_by_request_kind``); a shared signature does not do. Questions are most of what "
                    "an agent is asked, and in a bank of one domain they sit about 0.3 from every lesson of it.")

    def precise(self) -> "LessonMatch":
        """These settings with the bars of :data:`PRECISE_BARS` (a bar already higher stays): for agents
        that also get a second look before a tool call (``HindsightMiddleware``, ``tool_check_node``),
        whose plan's context then needs only the lessons close to the request.

        Example:
            >>> DEFAULT_LESSON_MATCH.precise().goal_min_similarity
            0.6
        """
        return self.model_copy(update={name: max(bar, getattr(self, name)) for name, bar in PRECISE_BARS.items()})


DEFAULT_LESSON_MATCH = LessonMatch()
#: Bars of :meth:`LessonMatch.precise`. In a bank of one deployment every request is about 0.3-0.5
#: close to every lesson, and a request about the same customer, animal or pallet as a past failure
#: ("mark Benji as arrived" after "cancel Benji's 4.20") is closer still. So with a second look before
#: each tool call, the plan's context shows a lesson only for a near repeat of its task, at least 0.6
#: close by every route (its text, its goal, a shared task signature, a question); the lookup by the
#: tool's name brings the rest at the call. Chosen at landing 21 on sixteen lesson sets (fourteen
#: written independently); paraphrases / unrelated requests with a lesson in the plan's context:
#: landing 20's bars (text 0.4, goal 0.5, signature 0.3, question 0.45) 43.8 / 7.1% on fourteen of
#: them, with one set's unrelated requests at 23% and two later sets' at 33 and 37%; 0.5 everywhere
#: 13.5 / 1.7% on the fourteen, 17 and 23% on the two later ones; 0.6 everywhere 2.8 / 0.6% on all
#: sixteen, at most 3% on one set. Every paraphrase still gets its lesson before the call.
PRECISE_BARS: dict[str, float] = {"min_similarity": 0.6, "goal_min_similarity": 0.6,
                                  "signature_min_similarity": 0.6, "question_min_similarity": 0.6}


class TaskSignature(BaseModel):
    """What a task does: action classes, object types, tools named, error class (of a lesson)."""

    model_config = ConfigDict(frozen=True)

    actions: frozenset[str] = frozenset()
    objects: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    error: str | None = None

    def __bool__(self) -> bool:
        return bool(self.actions or self.objects)

    def describe(self) -> str:
        """One line: ``action deploy; object software; tool deploy_service; error permission``."""
        parts = [f"{label} {', '.join(sorted(values))}" for label, values in
                 (("action", self.actions), ("object", self.objects), ("tool", self.tools)) if values]
        return "; ".join(parts + ([f"error {self.error}"] if self.error else []))


_WORD = re.compile(r"[a-z0-9][a-z0-9'/.:-]*[a-z0-9]|[a-z0-9]")


# Words the stemmer below would merge with another lexicon word ("plane" -> "plan", "note" -> "not").
_KEEP = {"plane": "plane", "planes": "plane", "note": "note", "notes": "note", "noted": "note"}


def _stem(word: str) -> str:
    """A tiny stemmer, the same on both sides: plural and verb endings, then a final 'e'."""
    word = word.strip("'.:-/").replace("'", "")
    if word in _KEEP:
        return _KEEP[word]
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "es" and not word[:-2].endswith(("s", "x", "ch", "sh", "z")):
                continue
            if suffix == "s" and word.endswith("ss"):
                continue
            word = word[: -len(suffix)] + keep
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "dropped" -> "dropp" -> "drop"
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _words(text: str) -> list[str]:
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase tool names
    return [_stem(w) for w in _WORD.findall(text.lower().replace("_", " "))]


def _pattern(phrase: str) -> re.Pattern[str]:
    rx = " "
    for word in phrase.lower().split():
        rx += r"(?:\S+ ){0,4}" if word == "*" else "".join(re.escape(w) + " " for w in _words(word))
    return re.compile(rx)


class _Compiled(NamedTuple):
    """A lexicon table ready to match: one-word phrases by stem, longer ones by their first stem."""

    single: dict[str, tuple[tuple[str, bool], ...]]  # stem -> (class, is a noun cue)
    multi: dict[str, tuple[tuple[str, "re.Pattern[str]", bool], ...]]  # first stem -> (class, pattern, noun cue)


def _compile_table(table: tuple) -> _Compiled:
    single: dict[str, list[tuple[str, bool]]] = {}
    multi: dict[str, list[tuple[str, re.Pattern[str], bool]]] = {}
    for name, phrases in table:
        for phrase in phrases:
            noun, words = phrase.startswith("="), phrase.lstrip("=").lower().split()
            stems = [w if w == "*" else " ".join(_words(w)) for w in words]
            if not stems or not stems[0] or stems[0] == "*":
                continue
            if len(stems) == 1 and " " not in stems[0]:
                single.setdefault(stems[0], []).append((name, noun))
            else:
                multi.setdefault(stems[0].split()[0], []).append((name, _pattern(phrase.lstrip("=")), noun))
    return _Compiled({k: tuple(v) for k, v in single.items()}, {k: tuple(v) for k, v in multi.items()})


@lru_cache(maxsize=8)
def _compiled(key: tuple) -> tuple[_Compiled, _Compiled]:
    """(actions, objects) of a lexicon, compiled once per lexicon."""
    actions, objects = key
    return _compile_table(actions), _compile_table(objects)


_DETERMINERS = frozenset("a an the my our your his her their its this that these those some any good new old "
                         "great nice".split())
# Questions about a topic ("Why should passwords be rotated?", "Explain what a backup is") do nothing:
# their verbs name no action of the agent's.
_ABOUT = re.compile(
    r"^\s*(?:why\b|explain\b|describe\b|define\b|recommend\b|suggest\b|tell me (?:about|what|why|how)\b"
    r"|what(?:'s| is| are) (?:a|an|the (?:difference|point|purpose|meaning))\b|what does .* mean\b"
    r"|how (?:do|does|would|should) (?:\w+ ){1,3}(?:usually |normally |typically )?work\b)", re.I)


def _classes(text: str, table: _Compiled, verbs: bool = False) -> frozenset[str]:
    words = _words(text)
    joined = " " + " ".join(words) + " "
    found: set[str] = set()
    pos = 0
    for i, word in enumerate(words):
        start, pos = pos, pos + len(word) + 1  # " word" starts at ``start`` in ``joined``
        nounish = verbs and i > 0 and words[i - 1] in _DETERMINERS  # "a good book", "the release"
        phrases = [(name, pattern.pattern) for name, pattern, _ in table.multi.get(word, ())
                   if pattern.match(joined, start)]
        found |= {name for name, _ in phrases}
        if verbs and any("{0," not in rx for _, rx in phrases):
            continue  # a phrase without a gap decides: "roll out" is a deploy, not a credential roll
        for name, noun in table.single.get(word, ()):
            if noun or not nounish:
                found.add(name)
    return frozenset(found)


@lru_cache(maxsize=4096)
def _signature(goal: str, tools: frozenset[str], error: str | None, key: tuple) -> "TaskSignature":
    actions, objects = _compiled(key)
    tool_text = " ".join(t.replace("_", " ") for t in sorted(tools))
    acts = _classes(tool_text, actions, verbs=True) if tool_text else frozenset()
    if not _ABOUT.match(goal):
        acts |= _classes(goal, actions, verbs=True)
    objs = _classes(f"{goal} {tool_text}", objects) | {IMPLIED_OBJECTS[a] for a in acts if a in IMPLIED_OBJECTS}
    return TaskSignature(actions=acts, objects=frozenset(objs), tools=tools,
                         error=error_class(error) if error else None)


_ERRORS = tuple((name, re.compile(rx, re.I)) for name, rx in ERROR_CLASSES)


def error_class(text: str | None) -> str | None:
    """The class of an error text (:data:`ERROR_CLASSES`), or None."""
    return next((name for name, rx in _ERRORS if rx.search(text or "")), None)


def goal_signature(goal: str, *, tools: Iterable[str] = (), error: str | None = None,
                   lexicon: Lexicon = DEFAULT_LEXICON) -> TaskSignature:
    """The signature of a goal (and, for a lesson, the tools it used and the error it met)."""
    return _signature(goal, frozenset(t for t in tools if t), error, lexicon.key())


# A lesson names its tools in the trace renderings the reflectors write ("deploy_service failed with: ...",
# "tool call (deploy_service): ...", "..., deploy_service then notify worked").
_TOOL_MENTIONS = (
    re.compile(r"\b([A-Za-z][\w.-]*) failed(?: with)?:"),
    re.compile(r"tool (?:call|result|error) \(([^)\s]+)\)"),
    re.compile(r"check what ([A-Za-z][\w.-]*) needs"),
    re.compile(r"Succeeded by ([\w.-]+(?: then [\w.-]+)*)"),
)
# Words the patterns above catch that name no tool ("... before calling it; last time it failed with:").
_NOT_TOOLS = frozenset({"A", "The", "tool", "answer", "answering", "it", "It", "this", "This", "that", "call"})
_GOAL_LINE = re.compile(r"^(?:Lesson from a (?:partly )?failed attempt at|What worked for): (.*)$", re.M)
_ERROR_LINE = re.compile(r"failed(?: with)?: (.*)")


def _lesson_parts(unit: "MemoryUnit") -> tuple[str, list[str], str | None]:
    """(goal, tools, error text) from a lesson's text: both reflectors write it with
    :func:`hindsight_core.lifecycle.reflect.lesson_text` (goal line, what went wrong, what to do)."""
    goal, tools, error = _text_parts(unit.text)
    return goal, list(tools), error


@lru_cache(maxsize=4096)  # a recall reads each hit's goal, tools and signature: one parse serves all three
def _text_parts(text: str) -> tuple[str, tuple[str, ...], str | None]:
    found = _GOAL_LINE.search(text)
    goal = found.group(1) if found else text.split("\n", 1)[0]
    tools: list[str] = []
    for rx in _TOOL_MENTIONS:
        for m in rx.finditer(text):
            tools += [t for t in m.group(1).split(" then ") if t not in _NOT_TOOLS]
    error = _ERROR_LINE.search(text)
    return goal, tuple(dict.fromkeys(tools)), error.group(1) if error else None


def lesson_goal(unit: "MemoryUnit") -> str:
    """The goal a lesson was learned on (lessons about one task share it)."""
    return _lesson_parts(unit)[0]


def lesson_tools(unit: "MemoryUnit") -> list[str]:
    """The tools a lesson or episode names (in the order it names them)."""
    return _lesson_parts(unit)[1]


def lesson_signature(unit: "MemoryUnit", lexicon: Lexicon = DEFAULT_LEXICON) -> TaskSignature:
    """The signature of a stored lesson: its goal's words plus the names of the tools it used."""
    goal, tools, error = _lesson_parts(unit)
    return goal_signature(goal, tools=tools, error=error, lexicon=lexicon)


def signature_query(signature: TaskSignature, lexicon: Lexicon = DEFAULT_LEXICON) -> str:
    """Words for a second recall that finds lessons of the same kind of task in other words: the
    single-word phrases of the goal's action classes and object types."""
    words: list[str] = []
    for table, names in ((lexicon.actions, signature.actions), (lexicon.objects, signature.objects)):
        for name in sorted(names):
            words += [p for p in table.get(name, ()) if " " not in p][:8]
    return " ".join(dict.fromkeys(words))


def signatures_match(goal: TaskSignature, lesson: TaskSignature) -> bool:
    """Whether a lesson is about the same kind of task: a shared action class and object type."""
    return bool(goal.actions & lesson.actions) and bool(goal.objects & lesson.objects)


_NOOP = re.compile(r"Succeeded by answering directly|answering directly worked", re.I)
_ACTED = re.compile(r"^- (?:tool call|tool error|correction)\b", re.M)


def is_noop_lesson(unit: "MemoryUnit") -> bool:
    """A lesson or episode of a run that did nothing useful: it ended well but no tool was called (the
    agent only answered), so it holds no recipe and must not push a real lesson out of the prompt.

    """
    from hindsight_core.models import MemoryKind, Outcome

    if unit.outcome is not Outcome.SUCCESS and unit.outcome is not Outcome.PARTIAL:
        return False
    if unit.kind is MemoryKind.EXPERIENCE:
        return not _ACTED.search(unit.text)  # the episode's key steps: no call, no error, no correction
    return bool(_NOOP.search(unit.text))
