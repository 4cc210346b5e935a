"""The English gloss of a message in another language (``lifecycle/glossary.py``) and the rules that
read an update through it (``update_rules.update_strength``).

The sentences are this file's own; the measured figures come from the update sets
(``python -m benchmarks.updates --data benchmarks/data/updates_fresh/set_X.json``).
"""

from __future__ import annotations

import pytest

from hindsight_core.lifecycle.glossary import english_word, gloss
from hindsight_core.lifecycle.update_languages import glossable, linked_across_languages
from hindsight_core.lifecycle.update_rules import GLOSSED_WEIGHT, two_voices, update_strength


@pytest.mark.parametrize(("text", "words"), [
    ("Mi hermano se ha mudado a Bilbao, el piso nuevo es enorme.", ["my brother", "moved", "Bilbao", "flat new"]),
    ("Mes parents habitent maintenant à Nantes.", ["my parents", "lives now", "Nantes"]),  # "mes" is "my" here
    ("Meine Schwester arbeitet jetzt als Lehrerin in Graz.", ["my sister works now", "teacher", "Graz"]),
    ("A minha avó vive agora num lar em Braga.", ["my grandmother", "now", "Braga"]),
    ("Da lunedì la riunione del team passa alle 11:30.", ["from monday", "meeting", "11:30"]),
    ("Ab sofort kostet das Vollkornbrot 4,80.", ["from now on", "bread", "4.80"]),  # a compound, a decimal comma
    ("El presupuesto es de 12.500 euros este mes.", ["budget", "12500", "this month"]),  # a thousands point
    ("Ich laufe jetzt 9.000 Schritte am Tag.", ["now", "9000", "daily"]),  # a period said as a phrase
    ("Voy al gimnasio tres veces por semana.", ["weekly"]),
])
def test_the_gloss_writes_the_common_words_in_english(text, words):
    out = gloss(text)
    for w in words:
        assert w in out, (w, out)


@pytest.mark.parametrize(("text", "english"), [
    ("La hermana de Jonas vive ahora en Lyon.", "Jonas's sister lives now in Lyon."),  # the owner after the thing
    ("La clase de pilates de mi madre es los martes.", "my mother's pilates class is the tuesday."),
    ("Le cours de yoga est le dimanche.", "the yoga class is the sunday."),  # a noun qualified by a noun
])
def test_the_gloss_puts_owners_and_qualifiers_before_the_noun(text, english):
    assert gloss(text) == english


def test_names_stay_as_written():
    out = gloss("Mi abuela vive ahora en la Clínica La Luz, Paseo de la Ribera 5.")
    assert "Clínica La Luz" in out and "Paseo" in out  # "paseo" alone is a walk
    assert gloss("Abuela Rosa vive ahora en Cádiz.").startswith("grandmother Rosa")  # a title before a name


def test_english_word():
    assert english_word("Großmutter") == "grandmother"
    assert english_word("désormais") == "now"
    assert english_word("habitent") == "lives"  # a verb person of a listed form
    assert english_word("Porto") is None
    assert english_word("Vollkornbrot") is None
    assert english_word("Vollkornbrot", compounds=True) == "vollkorn bread"


def test_a_change_read_through_the_gloss_is_an_update():
    older = "Bread at the corner bakery costs 4.20."
    newer = "Kurze Info: das Brot in der Bäckerei kostet ab sofort 4,80, leider."
    assert glossable(older, newer)
    reason, strength = update_strength(older, newer, 0.3)
    assert reason is not None
    # the same change said in English holds more surely than its gloss
    english, english_strength = update_strength(older, "Kurze Info: the bread in the bakery costs from now on 4.80, leider.", 0.3)
    assert english == reason and strength == pytest.approx(GLOSSED_WEIGHT * english_strength, rel=0.2)


def test_the_gloss_links_a_subject_said_in_another_language():
    older = "My grandmother lives with my aunt in Lyon."
    newer = "Mi abuela vive ahora en una residencia en Annecy, está muy contenta."
    assert linked_across_languages(older, newer)  # "abuela" is "grandmother"
    assert not linked_across_languages("The boiler service is due in May.", newer)


@pytest.mark.parametrize("newer", [
    "¿El pan de la panadería de la esquina cuesta ahora 4,80?",  # a question
    "Quizás el pan de la panadería de la esquina cueste 4,80 desde mayo.",  # a supposition
    "Intenté comprar el pan de la panadería de la esquina a 4,80, pero no quedaba.",  # an attempt
    "Solo hoy el pan de la panadería de la esquina cuesta 4,80.",  # a one-off
])
def test_look_alikes_in_another_language_change_nothing(newer):
    older = "Bread at the corner bakery costs 4.20."
    assert update_strength(older, "El pan de la panadería de la esquina cuesta ahora 4,80.", 0.3)[0] is not None
    assert update_strength(older, newer, 0.3) == (None, 0.0)


def test_a_note_label_is_no_speaker():
    assert not two_voices("Noted: my step goal is 8,000 a day.", "Note: my physio raised my step goal to 10,000.")
    assert two_voices("Ravi: I'm vegan.", "Lena: I've gone back to eating cheese.")
