"""Two active facts of one attribute that disagree: the later one answers a question about the present.

Every sentence here is written for these tests (none comes from a benchmark set).
"""

from __future__ import annotations

import pytest

from hindsight_core.lifecycle.rivals import (MIN_GAP_S, REASON, Statement, asked_statement, earlier_rivals, rival,
                                            states_many)

DAY = 86400.0

# (earlier fact, later text with no update cue, question about the present)
IMPLICIT = [
    ("I drink my tea with honey.", "been having my tea with lemon every afternoon since the cold",
     "How do I drink my tea?"),
    ("My sister lives in Porto.", "spent the weekend at my sister's new flat in Lyon, she loves the river there",
     "Where does my sister live?"),
    ("My nephew Sami is 6.", "Sami's 7th birthday party was chaos, he got a red bike", "How old is Sami?"),
    ("I can't stand olives.", "ordered a pizza loaded with olives and honestly they're great",
     "How do I feel about olives?"),
    ("The reporting job runs on the old cron box.", "the reporting job has been running in Airflow since the audit",
     "Where does the reporting job run?"),
]


@pytest.mark.parametrize("older,newer,question", IMPLICIT)
def test_an_implicit_change_rivals_the_earlier_fact(older, newer, question):
    assert rival(older, newer, question) == REASON


def test_a_change_said_in_another_language_rivals_through_its_gloss():
    question = "Where does my sister live?"
    assert rival("My sister lives in Porto.",
                 "Pasé el fin de semana en el piso nuevo de mi hermana en Lyon, le encanta el río.", question) == REASON
    # someone else's sister, said the way the language says it ("die Schwester von Jonas")
    assert rival("My sister lives in Porto.", "Die Schwester von Jonas wohnt jetzt in Lyon, sagt er.", question) is None
    food = "What is my favourite food?"
    assert rival("My favourite food is lamb tagine.",
                 "A minha comida preferida agora é feijoada, como toda semana.", food) == REASON
    assert rival("My favourite food is lamb tagine.",  # my sister's favourite
                 "A comida preferida da minha irmã agora é feijoada, ela pede sempre.", food) is None


# (earlier fact, a later look-alike that must leave it standing, question about the earlier fact)
LOOK_ALIKES = [
    ("I drink my tea with honey.", "I also started putting cinnamon in my tea", "How do I drink my tea?"),  # addition
    ("I drink my tea with honey.", "my husband takes his tea with lemon, no honey", "How do I drink my tea?"),
    ("I drink my tea with honey.", "thinking of trying my tea with lemon for a change", "How do I drink my tea?"),
    ("I drink my tea with honey.", "just for today my tea is with lemon since we ran out",
     "How do I drink my tea?"),  # temporary
    ("I drink my tea with honey.", "if we run out I'd drink my tea with lemon instead", "How do I drink my tea?"),
    ("I drink my tea with honey.", "should I try my tea with lemon?", "How do I drink my tea?"),  # question
    ("I drink my tea with honey.", "nothing's changed, ignore whoever said I drink my tea with lemon now",
     "How do I drink my tea?"),  # denial
    ("I drink my tea with honey.", "still drinking my tea with honey every single morning",
     "How do I drink my tea?"),  # restated
    ("My sister lives in Porto.", "grew up in Braga, my sister still misses it", "Where does my sister live?"),
    ("Our Basic plan costs $9 a month.", "their Basic plan went to $12 a month", "How much does our Basic plan cost?"),
    ("My favourite band is Wilco.", "new favourite album unlocked: Blue by Joni Mitchell", "What's my favourite band?"),
    ("The clinic is on Elm Street.", "the clinic opens at 8 these days", "Where is the clinic?"),  # another attribute
    ("The release window is Tuesday 10:00-12:00.", "Releases need two sign-offs.", "When is the release window?"),
    ("The garden shed is painted green.", "The garden shed has a padlock.", "What colour is the garden shed?"),
    # a one-off event about the subject states no new value of the asked attribute
    ("Our cat Miso is grey.", "Miso caught a mouse in the garden, very proud of herself", "What colour is Miso?"),
    ("The team offsite is in Porto.", "booked the flights for the offsite, everyone lands Thursday",
     "Where is the team offsite?"),
    ("My doctor is Dr. Okoye.", "saw the doctor about my knee, physio for six weeks", "Who is my doctor?"),
    ("I love sushi.", "tried making sushi at home, the rice was a disaster", "Do I like sushi?"),
    ("The staging cache runs Redis 6.2.", "the prod cache got bumped to Redis 7.2", "Which Redis does the staging cache run?"),
]


@pytest.mark.parametrize("older,newer,question", LOOK_ALIKES)
def test_a_look_alike_rivals_nothing(older, newer, question):
    assert rival(older, newer, question) is None


def test_the_question_must_be_about_the_earlier_fact():
    older, newer = "I drink my tea with honey.", "been having my tea with lemon every afternoon since the cold"
    assert rival(older, newer, "What time do I go running?") is None  # shares nothing with the fact
    assert rival(older, newer, "When do I drink my tea?") is None  # asks a time the fact does not state


def _s(uid: str, text: str, day: float, **kw) -> Statement:
    return Statement(uid, text, day * DAY, **kw)


def test_earlier_rivals_pairs_the_later_statement_with_the_fact_it_is_about():
    facts = [_s("colour", "My favourite colour is green.", 0), _s("tea", "I drink my tea with honey.", 1),
             _s("new", "been having my tea with lemon every afternoon since the cold", 31)]
    assert earlier_rivals(facts, "How do I drink my tea?") == {"tea": "new"}
    assert earlier_rivals(facts, "What's my favourite colour?") == {}


def test_earlier_rivals_needs_two_days_one_speaker_and_enough_trust():
    older = _s("a", "I drink my tea with honey.", 0)
    newer_text = "been having my tea with lemon every afternoon since the cold"
    q = "How do I drink my tea?"
    assert earlier_rivals([older, _s("b", newer_text, 0.5)], q) == {}  # one conversation
    assert MIN_GAP_S <= DAY
    assert earlier_rivals([older, _s("b", newer_text, 3, speaker="Bo")], q) == {}  # someone else
    assert earlier_rivals([older, _s("b", newer_text, 3, source="agent")], q) == {}  # the agent, not the user
    assert earlier_rivals([older, _s("b", newer_text, 3, replaced_another=True)], q) == {}  # it updated another fact
    assert earlier_rivals([older, _s("b", newer_text, 3)], q) == {"a": "b"}


def test_a_statement_that_replaced_a_fact_rivals_one_more_only_as_a_sheet_by_the_sure_judge():
    older = _s("a", "Recycling goes out on Sunday nights.", 0)
    sheet = "HOUSE NOTES\n- Recycling: Tuesday nights now\n- Shed key: Priya at number 9"
    line = "Recycling goes out on Tuesday nights now and Priya has the shed key."
    q = "When does the recycling go out?"
    asked: list[str] = []

    def sure(newer, earlier):
        asked.append(newer.id)
        return earlier[0]

    def plain(newer, earlier):
        raise AssertionError("the plain judge is not asked of a statement that replaced a fact")

    assert earlier_rivals([older, _s("b", sheet, 30, replaced_another=True)], q, plain, sure) == {"a": "b"}
    assert earlier_rivals([older, _s("b", sheet, 30, replaced_another=True)], q, plain) == {}  # no sure judge
    assert earlier_rivals([older, _s("c", line, 30, replaced_another=True)], q, plain, sure) == {}  # one sentence
    assert asked == ["b"]
    assert states_many(sheet) and not states_many(line) and not states_many(sheet.replace("\n", " ", 1))


def test_the_latest_of_two_rivals_answers():
    facts = [_s("a", "My sister lives in Porto.", 0),
             _s("b", "helped my sister unpack at her new flat in Lyon", 20),
             _s("c", "my sister lives in a cottage near Nantes", 40)]
    assert earlier_rivals(facts, "Where does my sister live?")["a"] == "c"


def test_a_sibling_fact_of_the_next_day_hides_nothing():
    facts = [_s("colour", "The boat is painted white.", 0), _s("mooring", "The boat has a winter mooring.", 1),
             _s("later", "got a new mooring rope for the boat, much thicker", 31)]
    assert earlier_rivals(facts, "What colour is the boat?") == {}


def test_a_statement_in_another_language_rivals_by_rule_only_with_a_change_cue():
    """The rules' look-alike gates read English: a later statement in another language is read by
    them only when it carries a change cue of its language. Without one it goes to the learned judge
    alone, which reads it through its English gloss (``retrieval.present``)."""
    older = _s("a", "Paolo fa il turno di notte.", 0)
    alike = _s("b", "No, Paolo non è passato al turno di pomeriggio, era solo una voce: fa sempre le notti.", 30)
    changed = _s("c", "Da lunedì Paolo è passato al turno di pomeriggio, adesso fa le 14-22.", 30)
    question = "Which shift does Paolo work?"
    judged: list[str] = []

    def refuses(newer, earlier):  # a judge that records what it is asked and names nothing
        judged.append(newer.id)
        return None

    assert earlier_rivals([older, alike], question) == {}
    assert earlier_rivals([older, alike], question, refuses) == {} and judged == ["b"]
    assert earlier_rivals([older, changed], question, lambda newer, earlier: earlier[0]) == {"a": "c"}


def test_a_later_text_with_none_of_the_asked_slot_rivals_nothing():
    # the question asks for a port; the later text is about the same exporter but states no port
    assert rival("The node exporter on the web hosts listens on port 9100.",
                 "The web node exporter is scraped by Prometheus every 15s.",
                 "Which port does the node exporter on the web hosts use?") is None
    assert rival("The node exporter on the web hosts listens on port 9100.",
                 "node exporter on the web hosts moved to port 9110",
                 "Which port does the node exporter on the web hosts use?") == REASON


def test_an_asked_word_gone_from_the_later_text_needs_a_change_said():
    query = "What time does dinner service start?"
    assert rival("Dinner service starts at 18:00, Wednesday to Sunday.", "Dinner service: last orders 21:30.",
                 query) is None
    # a present habit or a cue says it
    assert rival("I drink my tea with honey.", "been having my tea with lemon every afternoon since the cold",
                 "How do I drink my tea?") == REASON


def test_a_later_text_without_a_value_of_the_asked_kind_rivals_nothing():
    assert rival("Our bike lock-up is at Cyclehoop Marlow Road, bay 12.",
                 "bike lock-up fee goes up to £8 a month from next month", "Where's our bike lock-up?") is None


def test_the_speakers_own_subject_with_another_owner_rivals_nothing():
    # the question asks about the exercises; the later text's physio is someone else's
    assert rival("My physio wants the shoulder exercises done twice a day.",
                 "bro's physio has him doing his shoulder stuff 4x daily, madness",
                 "How often should I do my shoulder exercises?") is None


def test_a_slot_only_the_question_names_is_no_new_value():
    """"office" places a statement, but "office wifi" said again holds no place of its own."""
    older, question = "The agency's office is on the 4th floor of Mill House.", "Where is the agency's office?"
    assert rival(older, "agency office wifi got changed today, new password to follow", question) is None
    assert rival(older, "the agency office moved to Dock Street over the weekend", question) == REASON


def test_another_value_named_as_replaced_is_another_facts():
    older, question = "Gran's physio starts at 10am at the Oak clinic.", "What time does Gran's physio start?"
    later = "the taxi for Gran's physio now comes at 9:05 not 9:20, they changed the route"
    assert rival(older, later, question) is None
    assert rival(older, "Gran's physio starts at 11am these days", question) == REASON


# A note of several sentences: the question picks the one it asks about.
NOTE = "Pottery club meets in the church hall on Thursdays. Bring your own apron, the clay is provided."


def test_the_asked_sentence_of_a_note_is_what_the_question_is_about():
    assert asked_statement(NOTE, "Where does pottery club meet?") == "Pottery club meets in the church hall on Thursdays."
    assert asked_statement(NOTE, "Who provides the clay?") == "Bring your own apron, the clay is provided."
    assert asked_statement("I drink my tea with honey.", "How do I drink my tea?") == "I drink my tea with honey."


@pytest.mark.parametrize("text,question", [
    (NOTE, "What time is dinner?"),  # no sentence shares a word with the question
    ("Pottery club meets on Thursdays. The pottery club fee is £5.", "What about pottery club?"),  # a tie
    ("I went to a pottery class yesterday. The teacher was lovely and I made a bowl.", "Where do I do pottery?"),
    ('Mel said, "Pottery club meets in the church hall on Thursdays. The teacher is lovely."',
     "Where does pottery club meet?"),  # a turn of a talk, reported: read whole, as a story
])
def test_a_note_without_one_asked_sentence_has_no_asked_statement(text, question):
    assert asked_statement(text, question) is None


def test_a_later_text_rivals_the_asked_sentence_of_a_note():
    newer = "pottery club meets in the library annex now"
    assert rival(NOTE, newer, "Where does pottery club meet?") == REASON
    assert rival(NOTE, newer, "Who provides the clay?") is None  # the note's other sentence still holds


BINS = ("General waste goes out Tuesday night for the Wednesday pickup, recycling goes every other Friday, "
        "and the garden waste bin needs a council sticker renewed each April")


def test_a_sentence_too_long_for_one_value_is_read_by_its_asked_clause():
    assert asked_statement(BINS, "When does the recycling go out?") == "recycling goes every other Friday"
    newer = "recycling goes every other Monday now, the council changed the rounds"
    assert rival(BINS, newer, "When does the recycling go out?") == REASON
    assert rival(BINS, newer, "When does general waste go out?") is None


def test_a_note_in_another_language_is_not_cut_at_its_commas():
    """The look-alike rules read English: a French clause cut at a comma may hold no value at all."""
    note = ("Pour le séminaire de Lisbonne, on loge à l'hôtel Bairro Alto du 12 au 15 mai avec toute "
            "l'équipe commerciale et les deux stagiaires")
    assert asked_statement(note, "Which hotel are we at for the Lisbon seminar?") is None


@pytest.mark.parametrize("older, newer, question", [
    # a plain note of another measure beside the asked one: an age for a weight, opening hours for an address
    ("Jo: Pepper weighs 11 kg, vet's fine with that.", "Jo: Pepper's a border collie, four years old, allergic to beef.",
     "How heavy is Pepper?"),
    ("The Lisbon office is at Rua Augusta 40.", "Lisbon office hours are 8:30 to 17:00, closed Sunday afternoons in July.",
     "What is the address of the Lisbon office?"),
])
def test_a_plain_note_of_another_measure_rivals_nothing(older, newer, question):
    assert rival(older, newer, question) is None


def test_with_no_word_of_change_a_value_of_the_same_measure_still_rivals():
    assert rival("The team has 6 engineers.", "the team is 9 engineers strong after the hiring round",
                 "How many engineers does the team have?") == REASON
    assert rival("My nephew Jonas is 8.", "Jonas's 9th birthday was a blast, laser tag all afternoon",
                 "How old is Jonas?") == REASON
