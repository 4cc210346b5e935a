"""PII and secret redaction, applied before anything is stored, embedded or truncated.

Offline and fast: each detector is a compiled pattern plus a check that keeps look-alikes out
(Luhn and issuer prefixes for cards, ISO 13616 mod-97 and country lengths for IBANs, octet ranges
for IPv4, :mod:`ipaddress` for IPv6, SSA rules for US SSNs) and context words where the shape
alone is ambiguous (a bare 10-digit number is a phone only near "call", "phone", "tel"...; an
IPv4-shaped number right after "version" is a version). All detectors find spans in the original
text; overlaps go to the earlier detector, then the longer span; then every span is replaced at once.

Kinds and placeholders: ``email`` [EMAIL], ``phone`` [PHONE], ``card`` [CARD], ``id_number``
[ID_NUMBER], ``iban`` [IBAN], ``secret`` [SECRET], ``ip_address`` [IP_ADDRESS]. A labelled secret
("password: hunter2", "Passwort ist Sommer2024") keeps its label and loses its value.

Measured on a labelled corpus of look-alikes and positives (``python -m benchmarks.security``).

Example:
    >>> redact("mail bob@example.com or call +1 (415) 555-0199.").text
    'mail [EMAIL] or call [PHONE].'
    >>> redact("The team's password manager is LastPass; see version 10.2.3.4.").text
    "The team's password manager is LastPass; see version 10.2.3.4."
    >>> redact("my password is sunshine").text
    'my password is [SECRET]'
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

__all__ = ["Redaction", "redact", "redact_value", "redact_id", "redact_episode", "PLACEHOLDERS"]

PLACEHOLDERS = {
    "email": "[EMAIL]", "phone": "[PHONE]", "card": "[CARD]", "id_number": "[ID_NUMBER]",
    "iban": "[IBAN]", "secret": "[SECRET]", "ip_address": "[IP_ADDRESS]",
}

#: How far back (characters) a context word may stand from an ambiguous number ("call me on ...").
CONTEXT_WINDOW = 40
#: Fewest digits a phone number written without "+" has (national numbers of DE/FR/UK/US/IN have 9-11).
MIN_NATIONAL_PHONE_DIGITS = 9
#: Fewest digits after a "+" country code (short numbers of small countries have 7-8).
MIN_INTERNATIONAL_PHONE_DIGITS = 8
MAX_PHONE_DIGITS = 15  # ITU-T E.164

Span = tuple[int, int, str]  # start, end, kind


# ---- checks -------------------------------------------------------------------------------------
def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# Issuer prefixes (IIN ranges) of the card networks in wide use; an order number that happens to
# pass Luhn rarely also starts like a card.
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|2)|35|1800|2131|5018|5020|5038|6304|6759|676[1-3])")

# ISO 13616 lengths by country (the most used ones; others accept 15-34 characters).
_IBAN_LENGTH = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24,
    "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21,
    "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28,
    "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31,
    "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
    "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}


def _iban_ok(compact: str) -> bool:
    compact = compact.upper()
    expected = _IBAN_LENGTH.get(compact[:2])
    if expected is not None and len(compact) != expected:
        return False
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    try:
        number = int("".join(str(int(c, 36)) for c in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def _ssn_ok(area: str, group: str, serial: str) -> bool:
    return area not in ("000", "666") and not area.startswith("9") and group != "00" and serial != "0000"


def _before(text: str, start: int, window: int = CONTEXT_WINDOW) -> str:
    return text[max(0, start - window):start].casefold()


# ---- context words ------------------------------------------------------------------------------
_PHONE_CONTEXT = re.compile(
    r"(?:phone|call|ring|dial|tel\b|tel\.|telephone|mobile|cell|handy|telefon|rufnummer|anruf|whats ?app|signal"
    r"|sms|text (?:me|him|her|them)|reach|contact|fax|number|nummer|numéro|téléphone|portable|appel|teléfono"
    r"|móvil|llama|telefone|celular|телефон|номер|電話|电话|手机|fon\b|hotline|landline|extension)",
)
_NOT_PHONE_CONTEXT = re.compile(
    r"(?<![a-z])(?:order|invoice|ticket|tracking|account|acct|reference|ref\b|ref\.|serial|build|timestamp|epoch|version"
    r"|release|issue|case|ticket|po\b|sku|isbn|batch|lot\b|id\b|id:|#|parcel|shipment|transaction|txn|row|line"
    r"|bytes|kb\b|mb\b|ms\b|seconds|sec\b|commit|pr\b|build|job|run)\W*(?:n(?:o|umber|r)\.?\W*)?$",
)
_VERSION_CONTEXT = re.compile(
    r"(?:version|ver\.?|v|release|build|firmware|rev\.?|revision|sdk|python|node|java|kernel|chrome|ios|android"
    r"|package|tag|oid|section|§|chapter|clause|rule|step|figure|fig\.?|table|item)\s*[:=]?\s*$"
)

# ---- patterns -----------------------------------------------------------------------------------
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)")
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}"              # OpenAI / Anthropic style
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"                 # Stripe secret / restricted / publishable
    r"|whsec_[A-Za-z0-9]{16,}"                                      # Stripe webhook secret
    r"|github_pat_[A-Za-z0-9_]{20,}"                                # GitHub fine-grained PAT
    r"|gh[pousr]_[A-Za-z0-9]{20,}"                                  # GitHub classic tokens
    r"|glpat-[A-Za-z0-9_-]{20,}"                                    # GitLab
    r"|hf_[A-Za-z0-9]{20,}"                                         # Hugging Face
    r"|(?:AKIA|ASIA|AIDA|AROA|AGPA|ANPA)[0-9A-Z]{16}"               # AWS access key ids
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"                               # Slack
    r"|xapp-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}"                                       # Google API key
    r"|ya29\.[0-9A-Za-z_-]{20,}"                                    # Google OAuth token
    r"|npm_[A-Za-z0-9]{30,}"                                        # npm
    r"|pypi-[A-Za-z0-9_-]{30,}"                                     # PyPI
    r"|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"                  # SendGrid
    r"|dop_v1_[a-f0-9]{40,}"                                        # DigitalOcean
    r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{20,}"                         # Shopify
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{8,}"  # JWT
    r"|https://hooks\.slack\.com/services/[A-Za-z0-9/]+"
    r")"
)
_URL_CREDENTIALS = re.compile(r"(?<=://)[^\s:/@]+:([^\s@/]+)(?=@)")  # scheme://user:PASSWORD@host

# A label, then how the value is introduced, then the value. The label words of several languages.
_SECRET_LABEL = (
    r"(?:passwords?|passwd|pwd|pw|pass ?phrase|passcode|pass ?code|pin(?:\s?code|\s?number)?|secret(?:\s?key)?"
    r"|client[_ -]?secret|api[_ -]?key|api[_ -]?token|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token"
    r"|private[_ -]?key|secret[_ -]?access[_ -]?key|aws[_ -]?secret(?:[_ -]?access[_ -]?key)?|bearer|token"
    r"|credentials?|login|passwort|kennwort|geheimzahl|zugangscode|mot de passe|mdp|code secret|contraseña"
    r"|clave|senha|пароль|密码|パスワード|wachtwoord|lösenord|hasło|parola)"
)
_SEPARATOR = (
    r"(?:\s*(?:[:=]|=>|->)\s*|\s+(?:is now|is still|now is|is|was|are|ist|lautet|est|es|é)\b\s*:?\s*(?:set to\s+|changed to\s+|now\s+|still\s+)?"
    r"|\s+(?:set to|changed to|reset to|updated to|of|for \w+ (?:is|was)|to)\s+|\s+-\s+|\s*[:=]?\s*)"
)
_LABEL = re.compile(r"(?i)(?<![\w-])" + _SECRET_LABEL + r"(?![\w-])")
_LABELLED = re.compile(
    r"(?i)(?P<label>" + _SECRET_LABEL + r")(?![\w-])(?P<sep>" + _SEPARATOR + r")"
    r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|“[^”\n]{1,200}”|«[^»\n]{1,200}»|`[^`\n]{1,200}`|[^\s\"'`,;]{1,200})"
)
# What may follow a label without being a secret: "password manager", "the password is required".
_NOT_A_VALUE = frozenset("""
manager managers policy policies reset resets field fields strength rotation rotations requirement requirements
rule rules hash hashes hashing hashed vault store stores storage change changes changed expiry expired expires
length prompt prompts protected protection less recovery recover hint hints form forms box input inputs dialog
page screen check checks checker validation validator generator generators entry entries login logins
file files manager's reuse reused sharing shared leak leaks breach manager. policy. safe safely strong weak
required optional invalid incorrect wrong correct missing empty long short too not never always also only set
saved sent stored encrypted rotated needed mandatory masked hidden visible valid secure unknown different
same being still now in on at by for from of to with the a an this that these those your my our their his
her its and or but if when which what who how is are was were be been ist sind war und oder der die das ein
eine est sont était le la les un une et ou es son y o el los las de del se must should will can could may
might would shall does do did has have had expire expiring expiration counts count limit limits budget
budgets usage used using use per size sizes window windows type types format formats based-auth auth
authentication endpoint endpoints refresh refreshed lifetime ttl scope scopes bucket buckets streaming
stream ids id list lists count. here there below above again instead please immediately every each all
enabled disabled attempts attempt complexity characters chars digits letters numbers better worse more less
easier harder longer shorter safer stronger weaker recommended preferred important essential what like usually
generally typically often just simply basically case-sensitive good bad fine ok okay known unchanged updated
case sensitive protected. displayed printed logged exposed compromised leaked weak. strong. long. short.
muss soll wird kann darf sollte nicht ist. doit peut debe puede tiene
""".split())
_SHORT_VALUE_LABELS = re.compile(r"(?i)^(?:pin|passcode|pass ?code|geheimzahl|code secret|zugangscode)")
_GENERIC_LABELS = re.compile(r"(?i)^(?:token|bearer|login|credentials?|secret|pin(?:\s?number)?|clave|parola)$")

_EMAIL = re.compile(r"(?<![\w.+-])[\w.%+-]+(?<!\.)@(?:[\w-]+\.)+[^\W\d_]{2,}(?![\w-])|(?<![\w.+-])[\w.%+-]+@\[[0-9.:a-fA-F]+\]")

_CARD = re.compile(r"(?<![\w.-])\d(?:[ .-]?\d){12,18}(?![\w]|[.-]\d)")
_IBAN_START = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{2})(\d{2})(?=[ -]?[A-Za-z0-9])")
_SSN = re.compile(r"(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-])")
_SSN_LABELLED = re.compile(
    r"(?i)\b(?:ssn|social security(?: number| no\.?)?|sozialversicherungsnummer|sin|nino|national insurance"
    r"(?: number)?|aadhaa?r(?: number| no\.?)?|tax id|steuer-?id|tin|passport(?: number| no\.?)?|personalausweis"
    r"(?:nummer)?|id card(?: number)?|driver'?s licen[cs]e(?: number| no\.?)?|dni|nie|nif|cpf|curp|nir|insee)"
    r"\W{0,3}(?:is\s+|was\s+|number\s+|no\.?\s*|#\s*)?(?P<value>[A-Z0-9][A-Z0-9 ./-]{4,22}[A-Z0-9])(?![\w])"
)
_UK_NINO = re.compile(r"(?<!\w)(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?!\w)")

_PHONE = re.compile(
    r"(?:(?<=[-/_:])(?=\+)|(?<![\w+.,/-]))(?:(?P<plus>\+|00)\s?\d{1,3}(?:\s?\(0\))?[\s.-]?)?"
    r"(?:\(\d{1,5}\)[\s.-]?)?\d{1,12}(?:(?:[\s.-]|/|\s?-\s?)\(?\d{1,10}\)?){0,6}(?![\w]|[.,]\d|-\d|/\d)"
)
_IPV4 = re.compile(
    r"(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:/\d{1,2})?(?![\w]|\.\d)"
)
_IPV6 = re.compile(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?:%\w+)?(?![\w:])")
_DATE_LIKE = re.compile(r"^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})(?:[ T]\d{1,2}(?::\d{2})*)?$")
_THOUSANDS = re.compile(r"^[1-9]\d{0,2}(?:([ ,.\u00a0'])\d{3})(?:\1\d{3})*$")
_RANGE = re.compile(r"^\d{1,4}\s?-\s?\d{1,4}$")


# ---- detectors: each yields spans over the original text ----------------------------------------
def _private_keys(text: str) -> Iterator[Span]:
    for m in _PRIVATE_KEY.finditer(text):
        yield m.start(), m.end(), "secret"


def _tokens(text: str) -> Iterator[Span]:
    for m in _TOKEN.finditer(text):
        yield m.start(), m.end(), "secret"
    for m in _URL_CREDENTIALS.finditer(text):
        yield m.start(1), m.end(1), "secret"


def _looks_secret(value: str) -> bool:
    """A bare word after a label with no "is"/":": a secret only if it mixes letters with digits or signs."""
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    has_sign = any(not c.isalnum() for c in value)
    return len(value) >= 4 and ((has_digit and has_alpha) or (has_sign and (has_alpha or has_digit)))


def _labelled(text: str) -> Iterator[Span]:
    for at in _LABEL.finditer(text):  # every label, also one inside another's match ("Bearer token is ...")
        m = _LABELLED.match(text, at.start())
        if m is None:
            continue
        label, sep, value = m.group("label"), m.group("sep"), m.group("value")
        start, end = m.start("value"), m.end("value")
        quoted = value[0] in "\"'“«`"
        bare = value.rstrip(".!?)")
        end -= len(value) - len(bare) if not quoted else 0
        word = bare.casefold()
        phrase = bool(re.search(r"(?i)pass ?phrase", label))
        if phrase and not quoted and len(re.findall(r"[^\W\d_]+", text[start:start + 80].split(".")[0])) >= 3 \
                and word not in _NOT_A_VALUE - {"correct"}:
            word = "_phrase_"  # "my passphrase is correct horse battery staple": several words are the secret
        if not quoted and (word in _NOT_A_VALUE or not word or word.startswith(("[", "-"))):
            continue
        if label.casefold() in ("pw", "pass code", "login") and not (sep.strip() or quoted):
            continue
        explicit = bool(sep.strip()) or quoted  # "is", ":", "=", "ist", "set to"...
        if _SHORT_VALUE_LABELS.match(label):
            if not (re.fullmatch(r"\d{3,8}", bare) or (explicit and len(bare) >= 3)):
                continue
        elif not quoted:
            if not explicit and not _looks_secret(bare):
                continue
            if _GENERIC_LABELS.match(label) and not _looks_secret(bare) and len(bare) < 12:
                continue  # "token is valid", "login: admin"... a generic label needs a secret-looking value
            if len(bare) < 3:
                continue
            if re.fullmatch(r"\d{1,3}(?:[.,]\d+)?[kKmM%]?", bare) and not _SHORT_VALUE_LABELS.match(label):
                continue  # "token limit: 512", "password length: 12"
        if phrase and not quoted:
            # A passphrase is several words: take the rest of the clause (up to 8 words).
            tail = re.match(r"[^\n.,;!?]{0,120}", text[end:])
            extra = tail.group(0) if tail else ""
            words = extra.split()
            if words and len(words) <= 8:
                end += len(extra.rstrip())
        yield start, end, "secret"


def _emails(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        yield m.start(), m.end(), "email"


def _ibans(text: str) -> Iterator[Span]:
    for m in _IBAN_START.finditer(text):
        country = m.group(1).upper()
        want = _IBAN_LENGTH.get(country)
        lengths = [want] if want else list(range(34, 14, -1))
        for length in lengths:
            compact, pos = m.group(1) + m.group(2), m.end()
            while len(compact) < length and pos < len(text):
                ch = text[pos]
                if ch.isascii() and ch.isalnum():
                    compact += ch
                    pos += 1
                elif ch in " -" and pos + 1 < len(text) and text[pos + 1].isascii() and text[pos + 1].isalnum():
                    pos += 1
                else:
                    break
            if len(compact) == length and not (pos < len(text) and text[pos].isascii() and text[pos].isalnum()) \
                    and _iban_ok(compact):
                yield m.start(), pos, "iban"
                break


def _cards(text: str) -> Iterator[Span]:
    for m in _CARD.finditer(text):
        raw = m.group(0)
        seps = {c for c in raw if not c.isdigit()}
        if len(seps) > 1:
            continue
        digits = "".join(c for c in raw if c.isdigit())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits) and _CARD_PREFIX.match(digits):
            yield m.start(), m.end(), "card"


def _id_numbers(text: str) -> Iterator[Span]:
    for m in _SSN.finditer(text):
        if _ssn_ok(m.group(1), m.group(3), m.group(4)):
            yield m.start(), m.end(), "id_number"
    for m in _SSN_LABELLED.finditer(text):
        value = m.group("value")
        if sum(c.isdigit() for c in value) >= 5:
            yield m.start("value"), m.end("value"), "id_number"
    for m in _UK_NINO.finditer(text):
        yield m.start(), m.end(), "id_number"


def _phones(text: str) -> Iterator[Span]:
    for m in _PHONE.finditer(text):
        raw = m.group(0).rstrip(" -./")
        start, end = m.start(), m.start() + len(raw)
        digits = sum(c.isdigit() for c in raw)
        international = m.group("plus") is not None
        before = _before(text, start)
        context = bool(_PHONE_CONTEXT.search(before))
        if digits > MAX_PHONE_DIGITS:
            continue
        if international:
            if digits < MIN_INTERNATIONAL_PHONE_DIGITS:
                continue
            if m.group("plus") == "00" and not context and digits < 11:
                continue
        else:
            if digits < MIN_NATIONAL_PHONE_DIGITS - (1 if context else 0):
                continue
            if _NOT_PHONE_CONTEXT.search(before) and not re.search(r"(?:phone|tel|mobile|call)\w*\W*$", before):
                continue
            if _DATE_LIKE.match(raw) or _RANGE.match(raw):
                continue
            if re.fullmatch(r"\d+[.,]\d+", raw) and not context:
                continue  # a decimal number
            if _THOUSANDS.match(raw) and not context:
                continue
            if re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", raw):  # IPv4-shaped: a version or an address
                continue
            separated = any(not c.isdigit() for c in raw)
            nanp = re.fullmatch(r"\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}", raw)
            trunk = raw.lstrip("(").startswith("0") and separated
            if not (context or nanp or trunk):
                continue
            if not separated and not context:
                continue
        yield start, end, "phone"


def _ip_addresses(text: str) -> Iterator[Span]:
    for m in _IPV4.finditer(text):
        before = text[max(0, m.start() - 24):m.start()].casefold()
        if _VERSION_CONTEXT.search(before):
            continue
        yield m.start(), m.end(), "ip_address"
    for m in _IPV6.finditer(text):
        raw = m.group(0)
        if raw.count(":") < 2 or not any(c.isdigit() for c in raw) or re.fullmatch(r"[\d:]+", raw) and "::" not in raw:
            continue  # "10:30:00" is a time
        try:
            ipaddress.IPv6Address(raw.split("%")[0])
        except ValueError:
            continue
        yield m.start(), m.end(), "ip_address"


# Order is priority on overlap: secrets first, then exact-checksum kinds, then shapes.
_DETECTORS: tuple[tuple[str, Callable[[str], Iterable[Span]]], ...] = (
    ("secret", _private_keys),
    ("secret", _tokens),
    ("email", _emails),
    ("iban", _ibans),
    ("card", _cards),
    ("id_number", _id_numbers),
    ("ip_address", _ip_addresses),
    ("secret", _labelled),
    ("phone", _phones),
)


@dataclass(frozen=True, slots=True)
class Redaction:
    """The redacted text and the kinds found (each once, in detector order)."""

    text: str
    kinds: tuple[str, ...]


def _spans(text: str, wanted: frozenset[str] | None) -> list[Span]:
    chosen: list[Span] = []
    for kind, detector in _DETECTORS:
        if wanted is not None and kind not in wanted:
            continue
        for start, end, found in sorted(detector(text), key=lambda s: (s[0], -(s[1] - s[0]))):
            if end <= start:
                continue
            if any(start < e and s < end for s, e, _ in chosen):
                continue  # an earlier detector owns (part of) it
            chosen.append((start, end, found))
    return sorted(chosen)


#: Strings up to this length have their redaction cached: metadata keys, speaker names, session and
#: episode ids repeat on every capture (two thirds of the redactions of a chat import).
_MEMO_MAX_CHARS = 64


def redact(text: str, kinds: Iterable[str] | None = None) -> Redaction:
    """Replace PII of the given ``kinds`` (default: all) with typed placeholders."""
    wanted = None if kinds is None else frozenset(kinds)
    if len(text) <= _MEMO_MAX_CHARS:
        return _redact_short(text, wanted)
    return _redact(text, wanted)


@lru_cache(maxsize=4096)
def _redact_short(text: str, wanted: frozenset[str] | None) -> Redaction:
    return _redact(text, wanted)


def _redact(text: str, wanted: frozenset[str] | None) -> Redaction:
    spans = _spans(text, wanted)
    if not spans:
        return Redaction(text=text, kinds=())
    out: list[str] = []
    pos = 0
    found: list[str] = []
    for start, end, kind in spans:
        out.append(text[pos:start])
        out.append(PLACEHOLDERS[kind])
        pos = end
        if kind not in found:
            found.append(kind)
    out.append(text[pos:])
    order = [k for k in PLACEHOLDERS if k in found]
    return Redaction(text="".join(out), kinds=tuple(order))


#: A UUID, hex or dashed: what uuid4() gives, never a person's data.
_UUID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)


def redact_id(value: str | None, kinds: Iterable[str] | None = None) -> tuple[str | None, tuple[str, ...]]:
    """Redact an identifier (session or episode id): PII inside it becomes a placeholder. A UUID (as
    the engine and the adapters generate them) holds none: about one random hex id in 1,500 passes
    the IBAN check ("ec29..." reads as a country code and check digits), and an id must stay the id.

    Example:
        >>> redact_id("ec299b706e2843049f96c7c02692882c")
        ('ec299b706e2843049f96c7c02692882c', ())
        >>> redact_id("jane@example.com")
        ('[EMAIL]', ('email',))
    """
    if value is None:
        return None, ()
    if _UUID.fullmatch(value):
        return value, ()
    r = redact(value, kinds)
    return r.text, r.kinds


def redact_value(value: Any, kinds: Iterable[str] | None = None) -> tuple[Any, tuple[str, ...]]:
    """Redact every string inside a JSON-like value (metadata), dict keys included; returns the
    value and the kinds found. Two keys that redact to the same text are kept apart by a ``#n`` suffix."""
    found: list[str] = []

    def text(s: str) -> str:
        r = redact(s, kinds)
        found.extend(k for k in r.kinds if k not in found)
        return r.text

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return text(v)
        if isinstance(v, dict):
            out: dict[Any, Any] = {}
            for k, x in v.items():
                key = text(k) if isinstance(k, str) else k
                if key in out:
                    n = 2
                    while f"{key}#{n}" in out:
                        n += 1
                    key = f"{key}#{n}"
                out[key] = walk(x)
            return out
        if isinstance(v, (list, tuple)):
            return type(v)(walk(x) for x in v)
        return v

    result = walk(value)
    return result, tuple(k for k in PLACEHOLDERS if k in found)


def redact_episode(episode: Any, kinds: Iterable[str] | None = None) -> Any:
    """A copy of an :class:`~hindsight_core.episodes.Episode` with every text redacted: goal, each
    step's text and tool name, ids and metadata. Run it *before* anything shortens or rephrases the
    trace (reflection, lesson text), so a cut can never leave half a secret that no detector sees."""
    steps = tuple(
        s.model_copy(update={"text": redact(s.text, kinds).text,
                             "tool": None if s.tool is None else redact(s.tool, kinds).text})
        for s in episode.steps
    )
    return episode.model_copy(update={
        "id": redact(episode.id, kinds).text,
        "goal": redact(episode.goal, kinds).text,
        "steps": steps,
        "session_id": redact_id(episode.session_id, kinds)[0],
        "metadata": redact_value(episode.metadata, kinds)[0],
    })
