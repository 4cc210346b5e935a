"""The cues that make a later statement an update, and the look-alikes that are not.

Pure functions over text, no model. A message is split into clauses; a clause that asks, supposes,
plans, describes a temporary exception, a failed attempt, a cancelled plan, a past event or someone
else's affairs says nothing about the present value, so it is set aside before the value is compared
(:func:`assertive_part`). A denial ("it didn't", "ignore the rumour") blocks the whole message.

Example:
    >>> look_alike("did someone bump the session TTL to an hour?")
    'question'
    >>> look_alike("just for today the standup is at 11, half the team is stuck at the airport")
    'temporary'
    >>> look_alike("if we moved search to OpenSearch we'd have to rewrite every index template")
    'hypothetical'
    >>> look_alike("heads up: we moved payments-api to port 9443 last night") is None
    True
    >>> update_cue("sorry, I meant Thursday")
    'correction'
    >>> assertive_part("Pro is $35/mo now. Should we raise Basic to $12?")
    'Pro is $35/mo now.'
"""

from __future__ import annotations

import functools
import re

from hindsight_core.lifecycle.slots import read

__all__ = ["look_alike", "clause_look_alike", "relations", "update_cue", "assertive_part", "split_clauses", "denies",
           "shares_with_another", "said_unchanged", "without_shared_new", "closed_by_request", "LOOK_ALIKES"]

_F = re.I

# Each look-alike form and the clause shapes that carry it. Ordered: the first that matches names it.
_CLAUSE_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hypothetical", re.compile(
        r"^\W*if\b|\b(if|unless|suppose|supposing|imagine|what if|in case)\b.*\b(would|wouldn't|'d|could|might|may|"
        r"probably|'ll have to|will have to|have to|need to|instead|we lose|we'll)\b|\bif\b.*\bever\b|\bwould have to\b|\bwould be\b|"
        r"\bwould('ve)? (need|go|slip|drop|lose|switch)\b", _F)),
    ("plan", re.compile(
        r"\b(thinking (about|of)|think(ing)? we (should|might)|might|maybe|considering|consider|there'?s talk|"
        r"talk of|planning to|(i|we|they|you|he|she) (\w+ )?plan to|plan is to|we'll see|nothing decided|not decided|"
        r"want to try|wants? to try|floated|put (it|this|that) to a vote|"
        r"(wants?|would like|'d like) to \w+\b[^.;]{0,50}\bnext (year|quarter|season|term)|"  # a wish for later
        r"propos(e|ed|al)|might try|could try|tempted|tempting|wondering|someday|at some point|"
        # "looking at swapping the router", "gonna ask about bumping dad to 10mg"
        r"looking (at|into) \w+ing|(gonna|going to|will|'ll|’ll) (ask|check|see|talk|chat) (about|if|whether)|"
        # "going to ask for a bigger allowance", "Procurement intends to move ..."
        r"(gonna|going to|will|'ll|’ll) ask for|intend(s|ed|ing)? to|"
        # "Starting next year we'd like to ...", "I'll raise it at the planning meeting", "we can talk about bumping it"
        r"next (year|quarter|season|term)\b[^.;]{0,40}\b(we|i)['’]d like to|"
        r"(i['’]ll|we['’]ll|will) (raise|table|propose|float) (it|this|that)\b|(can|could) talk about|"
        r"one day(?! (later|earlier|early|late|ahead|before|after|sooner)\b)|eventually|"  # not "moved one day later"
        r"depends (on )?how|next (year|quarter|month)\b.*\b(might|maybe|if|depends)|hop(e|ing) to|aim(ing)? (to|for)|"
        r"keep (you|everyone) posted|(we|i) should (really )?(?!be\b)\w+|"
        # a date set for later, nothing different until then ("launch pencilled in for the spring, so
        # nothing changes for us yet")
        r"pencil+ed in|nothing changes (for \w+ )?(yet|for now)|"
        # "thinking the supplies could go in the garage", "they were talking about pushing it",
        # "Plan for next sprint: ..." (not "we're looking at the 22nd", nor a receipt's "Plan: Premium")
        r"thinking\b[^.;]{0,80}\b(could|should|might|i['’]ll|we['’]ll)|(were|was|are|been) talking (about|of)|"
        # "I think when this lease is up I'll go for the Niro": a hedged future
        r"\bi think\b[^.;]{0,40}\b(i['’]ll|we['’]ll|i will|we will)\b|"
        # "thinking next year we try an Airbnb instead": a wish, in the plain present
        r"thinking\b[^.;]{0,50}\b(?:we|i) (?:try|go|get|switch|move|book|stay|use|make|let|put)\b|"
        r"plan for (next|this|the coming) \w+|(i['’]ll|we['’]ll|they['’]ll|i will|we will) probably|"
        r"asked (if|whether)|"
        # a change put off until something else happens ("once we're back I'm going to switch to ...")
        r"^\W*once\b[^.;]{0,60}\b(going to|gonna|i['’]ll|we['’]ll|i will|we will)|"
        # "once the knee's better we could drop to monthly": a change that waits on something
        r"\bonce\b[^.;]{0,60}\b(could|might|would))\b", _F)),
    ("temporary", re.compile(
        r"\b(just|only)\b[^.;,]{0,25}\b(today|tonight|tomorrow|this (week|weekend|morning|afternoon|evening|time|once))\b|"
        r"\b(today|tonight|tomorrow|this (week|weekend|time)) only\b|\btemporar(y|ily)\b|\bfor the (day|night|weekend)\b|"
        r"\b(this (week|weekend)|today|tonight)\b[^.;]{0,40}\b(while|because|since I|special occasion)\b|"
        r"\b(while|because)\b[^.;]{0,60}\b(this (week|weekend)|today|tonight)\b|"
        r"\bskipping\b|\bspecial occasion\b|\bnormal\b[^.;]{0,30}\bagain\b|"
        r"\bback to (the |his |her |their |my |our |its )?(normal|usual|regular)\b|"
        # "this sat only", "just for this trip", "for the next five days"
        r"\bthis (mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\w* only\b|"
        r"\b(just|only) for (this|that|the) (trip|visit|match|game|event|one|occasion|run|shift|month|round)\b|"
        r"\bfor the next (few |couple of |\w+ )?(days|weeks|nights|hours|hrs)\b|"
        # "for tonight's backfill only", "just till it reopens Monday", "reverting first thing tomorrow"
        r"\b(today|tonight|tomorrow)(['’]s)?\b[^.;,]{0,30}\bonly\b|"
        r"\b(till|until|til) (it|they|he|she|the \w+) (re-?opens?|returns?|comes? back|gets? back|is fixed|are fixed|recovers?)\b|"
        r"\brevert(s|ing)? (it |them |that )?(first thing |back )?(tomorrow|tonight|on \w+day|once|when|after)\b|"
        r"\bthis (week|weekend) only\b|\bfor now\b|\buntil (after|tomorrow|tonight)\b|"
        # "on 10mg til the results come back, then back to 5"
        r"\b(until|till|til)\b[^.;]{0,60}\bthen back (to|on)\b",
        _F)),
    ("failed_attempt", re.compile(
        r"\b(tried|attempted|trying)\b.*\b(but|rolled back|roll back|failed|fail|was full|didn't|couldn't|no luck|"
        r"reverted|all taken|oh well|sold out|booked up|unavailable|won't let|wouldn't let|won't allow|no chance|"
        r"bad idea|didn't work|was a disaster|never again|(so|and) (we|i) (went|switched|changed) back|"
        r"(so|and) (we|i) scrapped it|gave up)\b|"
        r"\b(going|goes|went|put it|putting it) back where (it|they) (was|were|belongs?)\b|"
        r"\brolled (\w+ ){0,3}back\b|\breverted\b|"
        r"\bsaid (no(?!\s+(more|longer))|absolutely not)\b|\bturned (us|it|that|me) down\b|\b(refused|declined)\b|"
        r"\b(answer|reply|response) was (an? )?(\w+ )?no\b(?!\s+(more|longer))|"  # "tried to ... answer was a flat no"
        # a request, then the answer ("asked mrs hale to move her to thursdays, no slots")
        r"\basked\b[^.;]{0,60}[,;—–-]\s*(no|nope|nah|no slots?|no space|no room|(s?he|they) (couldn'?t|can'?t)|"
        r"not possible|fully booked|full)\b|"
        # a wish, then the veto ("wanted standup at 10, got overruled")
        r"\b(wanted|asked for|pushed for|proposed|requested)\b[^.;]{0,60}\b(overruled|vetoed|shot down|knocked back|"
        r"turned down|rejected|voted down)\b|"
        # an attempt reported on its own: the outcome, if any, is in another sentence ("— app won't let me")
        r"\b(tried|attempted) (to|\w+ing)\b(?![^.;]*\b(worked|succeeded|successfully|managed)\b)", _F)),
    ("cancelled_plan", re.compile(
        r"\b(scrapped|shelved|abandoned|dropped|cancell?ed|killed) the (plan|idea|proposal|move)\b|"
        r"\bstay(s|ing)? (as is|put|the same)\b|\bnot worth\b|\bnot happening\b|"
        # "scrap what I said about switching" (not "ignore what I said about the colour, it's purple"), "the switch to X is OFF"
        r"\b(scrap|forget|ignore|disregard) what (i|we) (said|wrote|mentioned) about (switching|moving|changing|swapping|"
        r"pushing|bringing|going)\b|"
        r"\b(switch|move|change|migration) to\b[^.;]{0,40}\bis (off|cancell?ed|not happening)\b|"
        # a near miss: "we almost moved it to C7 but...", "kept it where it was", "decided against it"
        r"\b(almost|nearly)\s+\w+(ed|t)\b[^.;]*\bbut\b|\bcame close to\b[^.;]*\bbut\b|"
        r"\bkept (it|them|things|everything|the \w+)( \w+)? (where|as|the way) (it|they) (was|were|is|are)\b|"
        r"\bdecided (not to|against)\b|\bcalled (it|the \w+) off\b|\b(was|were) going to\b[^.;]*\b(but|nixed|off)\b|"
        r"\bidea'?s? (has |was |got )?(been )?(dropped|scrapped|shelved|ditched|binned)\b|\bthat'?s off\b|\bnixed\b|"
        r"\b(rejected|vetoed|voted down|shot down|turned down|dropped|scrapped|shelved) (it|that|this)\b|"
        # "the committee voted it down", "was about to ask them to move it ... but", "we'd talked about
        # extending it ... but", "forget I said anything"
        r"\b(voted|shot|turned|knocked) (it|that|this|them) down\b|\b(was|were) about to\b[^.;]*\bbut\b|"
        r"\b(talked|spoke|thought) about \w+ing\b[^.;]*\bbut\b|\bforget (i|we) (said|mentioned) (anything|it|that)\b", _F)),
    ("past_event", re.compile(
        # "back in 2019", "back in college"; not "back in stock", "back in active development"
        r"\b(back in (?:(19|20)\d\d|the day|the days|those days|college|school|uni|university|high school|the \w+s|"
        r"january|february|march|april|may|june|july|august|september|october|november|december)|"
        r"in (19|20)\d\d|last year('s)?|back then|before (the )?(19|20)\d\d|in college|in school|growing up|grew up|used to|remember when|"
        r"years ago|when I was|back when|in the old days|spent \d+ years|as a kid|good times|last time|"
        r"in the (sixties|seventies|eighties|nineties|\d0s)|old (photo|picture)s?|throwback|when (we|i) first|"
        r"when (he|she|they|we) (was|were)|"
        r"at my (first|old|previous|last) (job|place|company|school|flat|house))\b|"
        r"\b(previous|former|prior)\b[^.;,]{0,40}\b(was|were|had)\b", _F)),  # "the previous project's deadline was"
)
_DENIAL = re.compile(
    r"\b(it didn'?t|it did not|didn'?t change|hasn'?t changed|has not changed|nothing'?s changed|nothing has changed|"
    r"not true|isn'?t true|rumou?rs?|false alarm|ignore the|still the same|no change|never (moved|changed)|"
    r"is still\b[^.]*\bnot|did(n'?t| not) (\w+ ){0,4}(move|change|switch|happen|go through|agree)|"
    r"nothing (new )?(changed|went live)|(was|just|only) an? (\w+ ){0,2}glitch|"
    r"(hasn'?t|has not|haven'?t|have not) budged|"
    r"(has|have|had)(n'?t| not) (\w+ ){0,2}(quit|left|moved|changed|switched|stopped|gone)|"
    r"(has|have|had) (\w+ ){0,2}not (\w+ ){0,4}(moved|changed|switched)\b|"  # "we have Moritz not ... switched"
    # the earlier value is said to stand, or nothing is decided yet
    r"(don'?t|do not|never),? never (have|did)|same as before|"
    r"(date|price|fee|rate|plan|deadline|time|budget|decision|it|that|everything) (still )?stands|"
    r"nothing('s| is| has been)? decided|not decided yet|no decision yet|"
    # "she never said the deadline moved", "entries are NOT being extended", "same closing date as agreed"
    r"never said (\w+ ){0,5}(moved|changed|switched|extended|postponed)|"
    r"(is|are|isn'?t|aren'?t) not being (extended|moved|changed|pushed back|postponed)|"
    r"(are|is)n'?t being (extended|moved|changed|pushed back|postponed)|"
    r"(was|were)(n'?t| not) (cut|raised|moved|changed|cancell?ed|extended|pushed back|postponed|increased|reduced)\b|"
    r"same (\w+ )?(date|time|day|deadline|price|venue|place|slot) as (agreed|before|planned|usual|in the|on the))\b|"
    r"\bforget (about )?(that|it)\s*(?:[.!]+|$)|"
    # "... was 'cured' by some diet. It isn't.": a claim, then a sentence of its own saying it is not so
    # (or "We haven't!" after "Someone told me we'd put the box up to £21.")
    r"(?:^|[.!?]\s+)(?:it|that|we|they|i) (?:isn'?t|is not|wasn'?t|was not|haven'?t|have not|hasn'?t|has not|"
    r"didn'?t|did not)\s*[.!]|"
    # "... heard the deadline got pushed back - it hasnt, I rang them": the claim, then "it hasn't" alone
    r"(?:[,;:]|\s[—–-])\s*(?:it|that|they|he|she) (?:has|have|did|was|is)(?:n'?t| not)\s*[,.!;—–-]|"
    r"(?:isn'?t|is not|aren'?t|are not|won'?t be|will not be) changing\b|"
    r"\bit'?s (?:still )?the same (?:date|time|day|deadline|price|venue|place|slot)\b|"
    # a "no" to the rumour, then the thing said to stand: "no, Priya's still my manager", "nope, rent is still £1,150"
    r"^\W*(?:no|nope|nah)\b[,.!]*\s+(?:\w+\s+){0,2}?\w+(?:'s|’s| is| are)\s+still\b", _F)
_QUESTION_OPEN = re.compile(
    r"^\s*(wait|so|hey|um|hmm|quick q(uestion)?|q)?[,:]?\s*(did|does|do|is|are|was|were|should|shall|could|can|"
    r"would|will|has|have|anyone|any ?one|how|what|when|where|which|who|why|whats|what's|when's|where's|who's)\b", _F)
_OTHER_PERSON = re.compile(
    r"^\s*(my|our|her|his|their)\s+(husband|wife|partner|boyfriend|girlfriend|roommate|flatmate|mom|mum|mother|"
    r"dad|father|sister|brother|cousin|friend|aunt|uncle|niece|nephew|grandma|grandpa|neighbou?r|colleague|"
    r"kid|kids|son|daughter|boss)\b|^\s*(mom|mum|dad|grandma|grandpa)('s)?\b", _F)
#: A relative named as an owner inside a sentence: "Mum's party", "Grandpa's car".
_RELATIVE_OWNER = re.compile(r"\b(mom|mum|dad|grandma|grandpa)(?:'s|’s)", _F)
#: Someone who corrects the speaker ("Dad corrected me: ..."): what follows is the speaker's own fact.
_SETS_STRAIGHT = re.compile(r"\s+(?:corrected|reminded) (?:me|us)\b", _F)
#: "too" adds only at the end of a clause ("I like tea too."); before a word it is a degree ("too easy").
#: Where a clause ends: punctuation, the end, or a joining "so" / "and" / "but".
_CLAUSE_END = r"(?=\s*([.,!?;:)]|$|(so|and|but)\b))"
_ADDITION = re.compile(r"\b(also|as well|too" + _CLAUSE_END + r"|another|second|additionally|"
                       r"in addition|satellite|on top of|alongside|(?:an? (?:extra|additional)|one more)"
                       r"(?! (?:\w+ )?(?:minute|hour|day|week|month|year)s?\b)|"
                       # "added two tetras to the tank", "we're adding a vegan brownie to the cabinet"
                       r"add(?:ed|ing)\b[^.;]{1,40}\b(to|into) (the|our|my|his|her|their))\b", _F)
_REPLACE = re.compile(r"\b(instead|no longer|anymore|any more|replac\w*|switch\w*|swapp?\w*|moved? (to|over|into)|"
                      r"(?<!nothing else )(?<!nothing )chang(ed|es|ing)|renam\w*|"  # not "nothing else changes"
                      r"rather than|not \w+ anymore|gone off|dropped|quit)\b", _F)

#: Update cues by kind, first match wins. Corrections and explicit changes are the strongest.
#: ("Keep pushing" is encouragement, not a meeting pushed back.)
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("correction", re.compile(
        r"\b(correction|corrected (?:me|us)|(?:small|quick|tiny|one) fix|"
        r"fix (?:to|for) (?:your|my|the) (?:notes?|records?)|sorry|i meant|meant to say|my (mistake|bad)|mistake|wrong|typo|oops|i had that wrong|"
        r"to clarify|actually|mis(heard|read|remembered|typed|spoke|understood))\b|^\W*((oh|ah|no),? )?wait(?=\s*[,:.!\u2014\u2013-]|\s+(i|no|sorry)\b)", _F)),
    ("change", re.compile(
        r"\b(no longer|anymore|any more|instead|mov(?:e|es|ed|ing)|switch\w*|"
        # not "a water change", "an oil change": an event, no change of value
        r"(?<!before )(?<!without )(?<!avoid )(?<!water )(?<!oil )(?<!nappy )(?<!diaper )(?<!filter )(?<!litter )"
        r"chang\w+|migrat(?:e|es|ed|ing|o)|relocat\w+|replac\w+|"
        r"renam\w+|upgrad\w+|downgrad\w+|reassign\w*|handed|hand(ed)? over|took over|takes? over|taken over|taking over|promot\w*|"
        r"promo|went (up|down)|up to|down to|cut|rais\w+|lower\w*|bump\w*|trimm\w*|increas\w+|decreas\w+|reduc\w+|"
        r"scal(?:ed|ing)(?: [\w-]+){0,4}? (?:up|out|down|back)\b|"  # "scaled the cluster out to 9 nodes"
        # a sum a value goes to ("the fee goes to €60"; "went to 4 gigs" is no change)
        r"(?:goes|going|gone|went) to(?= [£$€]\s?\d)|"
        # a value set anew ("told the dairy to make it 4 litres"; "made it 5 km" is how far someone got)
        r"mak(?:e|es|ing) it(?= (?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twice)\b))|"
        r"dropp\w+|pull\w*|kill\w*|quit|retir\w+|cancell?ed for good|reshuffl\w+|cutover|rolled out|"
        r"transferr?\w*|now|these days|from now on|going forward|new|finally|switched|reorg|update[ds]?|"
        r"is live|went live|landed|slipp(?:ed|ing)|slips|rebook\w*|reschedul\w*|postpon\w*|push(ed)? (back|out)|extend\w*|"
        r"tighten\w*|loosen\w*|shorten\w*|lengthen\w*|revis\w*|adjust\w*|swap\w*|officially|overrul\w*|"
        r"handing|upp?ed|stop \w+ing|stopped|stopping|back to|ditch\w*|gave up|giving up|dumped|traded|now on|"
        r"(?<!keep )(?<!keeps )push(ed|ing)|shift(ed|ing)|(brought|pulled) forward|re-?brand\w*|"
        # a date moved against the one agreed ("two days later than we agreed"), not against the usual
        r"(?:earlier|later|sooner) than (?:we|i|planned|expected|agreed|thought|scheduled|booked|originally)|"
        # the thing replaced, named as the old one ("the old box is getting rebuilt", "the old name confused")
        r"the old (?:one|ones|pair|model|[a-z]+|\d+s)\b(?!\s+(?:is|was) (?:still|fine|better))|"
        r"(?:can'?t|cannot|not|never|won'?t) (?:be )?go(?:ing)? back|"
        # the rest said to stay: what the message does say is what changed ("7:30, same as I said otherwise",
        # "rest of the week as is")
        r"same\b[^.;!?]{0,20}\botherwise|otherwise (?:the )?(?:same|unchanged|as before)|"
        r"(?:everything|all) else (?:is |stays )?(?:the same|unchanged|as (?:is|before))|"
        r"rest of (?:the )?\w+ (?:is |stays )?(?:as is|unchanged|the same|as before)|"
        # the earlier value said to fall short ("1000 isn't cutting it")
        r"(?:is|was)(?:n['’]t| not) cutting it)\b|→|->|=>", _F)),
    ("effective", re.compile(
        r"\b(as of|starting|starts|from (tomorrow|today|tonight|next|monday|tuesday|wednesday|thursday|friday|saturday|"
        r"sunday|the \d+|this (week|weekend|month|term|sprint|(mon|tues|wednes|thurs|fri|satur|sun)day))|"
        # "since" giving a reason ("since it's a bank holiday") says no time ("since we moved to ..." does)
        r"effective|since(?!\s+(?:(?:19|20)\d\d\b|(?:that|it|this)(?:'s|’s| is)\b)))\b", _F)),
)

LOOK_ALIKES = tuple(name for name, _ in _CLAUSE_FORMS) + ("question", "denial", "other_person")

_SENT = re.compile(r"(?<=[.!?])\s+|\n+|\s+[—–]\s+|;\s*|\(\d\)\s*")
_CLAUSE = re.compile(r",\s+(?=(but|so|and then|though|although|which)\b)|\s+but\s+|"
                     # a result said after the change ("... cut to £3,100 so maybe skip the kits"), and the
                     # speaker's own aside ("..., I was mixing it up with prod", "..., I was reading last
                     # year's notes")
                     r"\s+(?=so\s+(?:maybe|make sure|please|don'?t|i|we|you|it'?s|that'?s)\b)|"
                     r",\s+(?=i was \w+ing\b)", _F)


@functools.lru_cache(maxsize=4096)
def split_clauses(text: str) -> tuple[str, ...]:
    """Sentences, dash- and semicolon-separated parts, then ``but``/``so`` clauses, stripped."""
    out: list[str] = []
    for sent in _SENT.split(text):
        if not sent or not sent.strip():
            continue
        parts = [p for p in _CLAUSE.split(sent) if p and p.strip() and p.lower() not in
                 ("but", "so", "and then", "though", "although", "which")]
        out.extend(p.strip() for p in parts)
    return tuple(out)


def _is_question(clause: str) -> bool:
    c = clause.strip()
    return (c.endswith("?") or bool(_QUESTION_OPEN.match(c) and "?" in c) or bool(_OR_ASKED.search(c))
            or bool(_ASKED_BARE.match(c)))


#: A question typed without its mark: an auxiliary, its subject, a bare verb ("does dad need 10mg now",
#: "should we swap the router for a Meraki"), or a permission or a report asked after ("is he allowed
#: to ...", "has anyone said ..."); not a request ("can you swap it in wherever ..."), nor "did 5k today".
_ASKED_BARE = re.compile(r"^\W*(?:(?:does|do|did|should|shall|could|can|would)\s+(?!you\b)"
                         r"(?:i|we|he|she|they|it|(?:the|my|our)(?: [\w-]+){1,3}?|(?-i:[a-z])\w+)\s+"
                         r"(?:still\s+|really\s+)?(?:need|want|have|get|go|take|stay|keep|switch|swap|move|use|start|"
                         r"stop|try|change|be|pay)\b|"
                         # "is Dimitri allowed to play now", "has someone said diesel can go in": who may or who said
                         r"(?:is|are)\s+(?:i|we|he|she|they|it|(?:the|my|our)(?: [\w-]+){1,2}?|[\w-]+)\s+"
                         r"(?:still\s+)?(?:allowed|able|meant|supposed|cleared|ok|okay|sure)\b|"
                         r"(?:has|have)\s+(?:anyone|anybody|someone|somebody|he|she|they|we)\s+"
                         r"(?:said|told|confirmed|agreed|decided|heard|checked|asked|changed|moved)\b)", _F)


#: Two values put to the listener, the question mark left off ("standup still 9:30 or did it move to 10").
_OR_ASKED = re.compile(r"\bor (?:did|does|do|is|are|was|were|has|have|will) (?:it|they|he|she|we|you|that)\b|"
                       r"\bor (?:nah|what|no)\s*\W*$|\bor still\b", _F)  # not "... whether you like it or not"


#: A hedge or an exclamation put as a question after a statement ("so pescatarian i guess?", "Kwame's
#: not nursing anymore, can you believe it?"): the statement stands. "..., right?" asks for a check.
_TAG_QUESTION = re.compile(r"[,\s]+(i guess|i think|i suppose|i reckon|can you believe (it|that)|who knew|go figure|"
                           r"lol|haha)\s*\?+\s*$", _F)


#: A request to the listener after a statement ("..., can you change it in the address list?"): the
#: statement stands; the request asks to act on it.
_REQUEST_TAIL = re.compile(r"[,;]\s+(?:so\s+)?(?:can|could|would) (?:you|someone|somebody|anyone)(?: please)? "
                           r"(?:change|update|fix|add|send|bring|check|book|correct|note|put|pass|let|tell|remind|"
                           r"move|swap)\b[^?]*\?+\s*$", _F)


def closed_by_request(text: str) -> bool:
    """``text`` states something and closes by asking to act on it, after a comma ("..., can you
    change it on the rota?"): a statement, not a question."""
    return bool(_REQUEST_TAIL.search(text))


def _tagged_statement(sentence: str) -> str | None:
    """The statement before a hedging tag question (:data:`_TAG_QUESTION`) or a request to act on it
    (:data:`_REQUEST_TAIL`), or None."""
    if _QUESTION_OPEN.match(sentence):
        return None
    m = _TAG_QUESTION.search(sentence) or _REQUEST_TAIL.search(sentence)
    head = sentence[:m.start()].strip() if m else ""
    return head if head and "?" not in head else None


def relations(text: str) -> frozenset[str]:
    """The relatives and people-by-role a text opens a clause with ("my husband", "Mom's"), or names as
    an owner anywhere ("Rosa is planning *Mum's* party")."""
    return frozenset([(m.group(2) or m.group(3)).lower() for c in split_clauses(text) for m in [_OTHER_PERSON.search(c)]
                      if m is not None] + [m.group(1).lower() for m in _RELATIVE_OWNER.finditer(text)])


@functools.lru_cache(maxsize=4096)
def clause_look_alike(clause: str, about: frozenset[str] = frozenset()) -> str | None:
    """The look-alike form of one clause (``question``, ``hypothetical``, ``plan``...), or None.

    ``about``: the relatives the earlier statement itself is about ("my dad" in "My dad works as an
    electrician"); a clause about one of them is not someone else's affair.
    """
    if _is_question(clause):
        return "question"
    m = _OTHER_PERSON.search(clause)
    if (m is not None and (m.group(2) or m.group(3)).lower() not in about
            and not _SETS_STRAIGHT.match(clause, m.end())):
        return "other_person"
    for name, pattern in _CLAUSE_FORMS:
        m = pattern.search(clause)
        if m is None or (name == "past_event" and _NOW_THEN_WHY.search(clause, 0, m.start())):
            continue  # "breakfast is porridge now, the bagels sat like a brick last time": the past is the reason
        return name
    return None


#: A present value said first, a comma, then a reason ("... is porridge now, the bagels sat like a brick last time").
_NOW_THEN_WHY = re.compile(r"\b(?:now|these days|nowadays|from now on|instead)\s*[,;]", _F)


def denies(text: str, subject: tuple[str, ...] = ()) -> bool:
    """The message denies a change ("it didn't", "nothing's changed", "ignore the rumour"), or says one is
    not under way ("we aren't raising the fee") with no other change after it.

    With ``subject`` (the earlier statement's subject words), a sentence saying only that another
    thing did not change is an aside beside the change, no denial of it.

    Example:
        >>> denies("Ingrid owns the sign-off now. deadline hasn't changed.", ("sign-off",))
        False
        >>> denies("Ingrid owns it now? no, the sign-off hasn't changed.", ("sign-off",))
        True
        >>> denies("no, the gym membership has NOT been frozen"), denies("No, that's wrong, it's the 13th, not the 3rd.")
        (True, False)
    """
    if subject:
        text = " ".join(s for s in _SENT.split(text) if not _another_unchanged(s, subject))
    if _DENIAL.search(text) or (_NO_THEN_NEGATED.search(text) and not _NOW_OTHERWISE.search(text)):
        return True
    m = _NOT_UNDER_WAY.search(text)
    return m is not None and not _GOING_ELSEWHERE.search(text, m.end())


#: A "no" said to a claim, then the claim negated in the same sentence: "no, Kasia's restriction has NOT
#: been lifted", "Re your note — no, the clinic didn't clear me", "Bev: no, Biscuit does NOT need a lunchtime
#: walk"; not "no sugar in my tea anymore" ("no" before a noun), nor a correction that calls the earlier
#: value wrong ("No, that's wrong, her birthday is the 13th, not the 3rd").
_NO_THEN_NEGATED = re.compile(
    r"(?:^|[—–:-]\s*|[.!?]\s+)(?:no|nope|nah)\s*[,.!—–-]+"
    r"(?!\s*\d|\s*(?:that|it|this)(?:'s|’s| is) (?:wrong|not right|incorrect|a mistake))"  # not "No. 5"
    r"[^.!?]*?\b(?:not|never|\w+n['’]t|(?:is|was|were|are|did|does|do|has|have|had|ca|wo)nt)\b", _F)
#: ... unless the message says the value is otherwise now ("no, not in room 4 any more, it's room 6 now").
_NOW_OTHERWISE = re.compile(r"\b(?:any ?more|no longer|from now on|these days|going forward|I meant|my mistake|"
                            r"typo|should have said|correction)\b", _F)


_CHANGE_VERB = r"(?:put|rais|mov|chang|cut|bump|push|increas|reduc|extend|switch|drop)\w*"
#: A change said not to be under way: "no, we're NOT putting the rates up to £275", "they aren't moving the office".
_NOT_UNDER_WAY = re.compile(r"\b(?:(?:we|they|i|he|she)(?:'re|'m|'s| are| am| is) not|(?:we|they) aren'?t|"
                            r"(?:he|she) isn'?t) (?:going to |gonna )?" + _CHANGE_VERB + r"\b", _F)
#: ... unless another change follows: "we're not moving to Slack, we're moving to Teams", "..., it's going to York".
_GOING_ELSEWHERE = re.compile(r"\b(?:we|they|it|he|she)(?:'re|'s| are| is) (?:\w+ing|going)\b|\b(?:instead|rather|but)\b", _F)


#: A sentence saying only that one thing did not change: "deadline hasn't changed.", "the fee didn't change".
_THING_UNCHANGED = re.compile(r"^\W*(?:the |our |my |their |its |his |her )?([a-z][\w-]*(?: [a-z][\w-]*){0,2}) "
                              r"(?:hasn'?t|has not|didn'?t|did not|won'?t|will not) change[ds]?\W*$", _F)


def _another_unchanged(sentence: str, subject: tuple[str, ...]) -> bool:
    m = _THING_UNCHANGED.match(sentence)
    return m is not None and not any(read(m.group(1)).has(w) for w in subject)


#: A clause after a comma saying another attribute is kept ("we'll open at 8:30, closing time stays the
#: same"): an aside, not the sentence's cancelled plan ("..., but it stays the same" is one).
_KEPT_ASIDE = re.compile(r",\s+(?!(?:but|and|so|though|although|yet|it|that|this|everything|things|we|they|i|all)\b)"
                         r"(?:the\s+|our\s+|my\s+)?[a-z][\w -]{0,30}?\s+(?:stays?|remains?) (?:as is|the same|unchanged)"
                         r"[^,.;!]*(?=[.!]*\s*$)", _F)


#: The usual value comes back: what the message changes, it changes for a while.
_BACK_TO_NORMAL = re.compile(r"\bback to (?:the |his |her |their |my |our |its )?(?:normal|usual|regular)\b"
                             r"(?! (?:now|again)\b)|\bas (?:normal|usual) (?:after|from|next)\b", _F)


@functools.lru_cache(maxsize=4096)
def assertive_part(text: str, about: frozenset[str] = frozenset()) -> str:
    """The clauses of ``text`` that state something about the present (look-alike clauses removed);
    ``about`` as for :func:`clause_look_alike`."""
    if _BACK_TO_NORMAL.search(text):
        return ""  # "no parkrun this weekend, ... back to normal after": the whole change is for a while
    sentences = [s for s in _SENT.split(text) if s and s.strip()]
    kept: list[str] = []
    for sent in sentences:
        sent = _KEPT_ASIDE.sub("", sent)
        if _is_question(sent):
            sent = _tagged_statement(sent) or ""
            if not sent:
                continue
        clauses = [c for c in split_clauses(sent) if clause_look_alike(c, about) is None]
        if clauses and clause_look_alike(sent.strip(), about) not in ("hypothetical", "failed_attempt", "cancelled_plan"):
            kept.append(" ".join(clauses) if len(clauses) > 1 else clauses[0])
    return " ".join(kept)


def look_alike(text: str, about: frozenset[str] = frozenset()) -> str | None:
    """Why ``text`` as a whole is not an update though it may look like one, or None.

    A message whose every clause is a look-alike (or that denies a change) names the form of its
    first look-alike clause.
    """
    if denies(text):
        return "denial"
    if assertive_part(text, about).strip():
        return None
    for clause in split_clauses(text):
        form = clause_look_alike(clause, about)
        if form is not None:
            return form
    for name, pattern in _CLAUSE_FORMS:  # a whole-sentence form the clauses split apart
        if pattern.search(text):
            return name
    return "question" if "?" in text else None


def is_addition(clause: str) -> bool:
    """An added value ("I also like tea") rather than a replaced one."""
    return bool(_ADDITION.search(clause)) and not _REPLACE.search(clause)


#: "too" or "as well" closing a clause.
_SHARED = re.compile(r"\b(too|as well)" + _CLAUSE_END, _F)
#: A result or a reason follows ("... 65 seats so the studio is covered too"): its "too" is about that.
_RESULT = re.compile(r"\b(?:so|because|since)\b", _F)


def shares_with_another(text: str) -> bool:
    """Before any result or reason, ``text`` closes a clause with "too" or "as well" and replaces nothing:
    another thing gets the same kind of value ("the drinks fridge now alarms above 5°C too"), unlike
    "bumped the pool to 65 seats so the studio is covered too"."""
    head = _RESULT.split(text, 1)[0]
    return bool(_SHARED.search(head)) and is_addition(head)


_EFFECTIVE_TIME = re.compile(
    r"\b(as of|starting|starts|start|effective|beginning|begins)\s+(this|next|the|on)?\s*"
    r"(mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bfrom (next|this) (mon|tues|wednes|thurs|fri|satur|sun)day\b(\s+on\b)?|"
    r"\b(as of|starting|starts|effective|from|beginning|begins)\s+(this|next|the)?\s*"
    r"(tomorrow|today|tonight|now|week|month|sprint|quarter|year|cycle|term|semester)\b(\s+on\b)?", _F)


def without_effective_time(text: str) -> str:
    """``text`` without the phrase that says when it takes effect ("as of Monday", "starting next
    week", "from tomorrow on"): that time is when the new value holds, not the value."""
    return re.sub(r"\s{2,}", " ", _EFFECTIVE_TIME.sub(" ", text)).strip()


#: "Sorry" said to the listener, not of what was said: "I'm so sorry", "sorry to hear that", "sorry for your
#: loss" (a bare "I'm sorry, ...", "sorry for the confusion" still open a correction).
_SYMPATHY = re.compile(r"\b(i'?m|i am) (so|really|very|truly|deeply) sorry\b|\bsorry (to hear|for your|about your)\b", _F)


@functools.lru_cache(maxsize=4096)  # asked of each text of every pair capture compares, sentence by sentence
def update_cue(text: str) -> str | None:
    """The kind of update cue ``text`` carries: ``correction``, ``change``, ``effective``; or None."""
    text = _SYMPATHY.sub(" ", text)  # sympathy corrects nothing ("I'm so sorry, that sounds rough")
    for name, pattern in _CUES:
        if pattern.search(text):
            return name
    return None


__all__ += ["is_addition", "without_effective_time", "handover_only"]

#: Cues of a duty changing hands, which say who does a thing now, not that its other values changed.
_HANDOVER = re.compile(r"\b(?:hand(?:ed|ing|s)? (?:\w+ )?over|(?:took|takes?|taken|taking) over)\b", _F)


def handover_only(text: str) -> bool:
    """The only update cue of ``text`` is a duty changing hands ("uncle raj has taken over the organising").

    Example:
        >>> handover_only("dad's 70th: uncle raj has taken over the organising")
        True
        >>> handover_only("Jo has taken over, and the party moved to the 23rd")
        False
    """
    return bool(_HANDOVER.search(text)) and update_cue(_HANDOVER.sub(" ", text)) is None


#: A clause that says its thing did not change: "Family plan unchanged", "the fee stays the same".
_UNCHANGED = re.compile(r"\b(unchanged|untouched|unaffected|not (?:touched|affected)|stays? the same|stays? as (?:is|it is)|"
                        r"as before|no change|stays? put|"
                        r"stays? (?:on|with) (?:the |her |his |their |its |my |our )?(?:usual|same|old))\b", _F)
#: Clause breaks for :func:`said_unchanged`: lines, bullets, sentences, commas, "but".
_UNCHANGED_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|[;|\u2022]|,\s*|\s+but\s+")


def said_unchanged(names: list[str], text: str) -> bool:
    """``text`` names the thing (any of ``names``, words as :func:`~hindsight_core.lifecycle.slots.read`
    gives them) only in clauses that call it unchanged ("hotel: Harbour Inn, unchanged"; a bare
    "unchanged" belongs to the clause before it).

    Example:
        >>> said_unchanged(["plan"], "Basic is £8 now, Family plan unchanged")
        True
        >>> said_unchanged(["basic"], "Basic is £8 now, Family plan unchanged")
        False
    """
    if not _UNCHANGED.search(text):
        return False  # (asked of every pair the rules compare: no clause can be marked)
    scopes: list[tuple[str, bool]] = []
    for clause in _UNCHANGED_SPLIT.split(text):
        if not clause or not clause.strip():
            continue
        marked = bool(_UNCHANGED.search(clause))
        if marked and scopes and not read(_UNCHANGED.sub(" ", clause)).tokens:
            scopes[-1] = (scopes[-1][0] + " " + clause, True)
        else:
            scopes.append((clause, marked))
    naming = [marked for clause, marked in scopes if any(read(clause).has(w) for w in names)]
    return bool(naming) and all(naming)


def without_shared_new(older: str, text: str) -> str:
    """``text`` with "new" taken out where ``older`` says it before the same word: "the new payments
    app" in both texts names the project and is no update cue.

    Example:
        >>> without_shared_new("The new app ships in May.", "The new app is in beta")
        'The app is in beta'
    """
    shared = {m.group(1).lower() for m in re.finditer(r"\bnew\s+([\w-]+)", older, re.I)}
    if not shared:
        return text
    return re.sub(r"\bnew\s+([\w-]+)", lambda m: m.group(1) if m.group(1).lower() in shared else m.group(0), text,
                  flags=re.I)
