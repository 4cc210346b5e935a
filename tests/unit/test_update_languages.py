"""Updates written in another language than the fact they change (``lifecycle/update_languages.py``).

The examples are this file's own; the measured figures come from the fresh update sets
(``python -m benchmarks.updates --data benchmarks/data/updates_fresh/set_X.json``).
"""

from __future__ import annotations

import pytest

from hindsight_core.lifecycle.update_languages import (changed_in_other_language, is_foreign,
                                                       linked_across_languages, says_changed)
from hindsight_core.lifecycle.update_rules import judge_update

YOGA = "Yoga with Camille: Saturdays 10am, community hall"
OFFICE = "The Porto office is at Rua Augusta 12."
LUNCH = "Friday lunch comes from Casa Pepe."


@pytest.mark.parametrize(("older", "newer", "fit"), [
    (YOGA, "Camille a déplacé le cours de yoga au dimanche à 9h.", 1.0),  # another weekday
    (OFFICE, "O escritório do Porto mudou-se para a Avenida da Liberdade 40.", 1.0),  # another number
    # the old value named only where it is said to be gone; the new one is a name
    (LUNCH, "Desde hoy el almuerzo del viernes viene de Taquería Luna, Casa Pepe ya no abre.", 0.5),
    ("Our supplier contact in Berlin is Herr Vogel.", "Ab sofort ist Frau Brandt unsere Ansprechpartnerin beim Berliner Lieferanten.", 0.5),
])
def test_a_change_in_another_language_is_read(older, newer, fit):
    assert changed_in_other_language(older, newer) == fit
    assert linked_across_languages(older, newer)
    assert judge_update(older, newer, 0.2) == "changed, said in another language"


@pytest.mark.parametrize("newer", [
    "¿Ahora la clase de yoga con Camille es el domingo?",  # a question
    "Si Camille déplace le cours de yoga au dimanche, on y va quand même.",  # a supposition
    "Solo hoy la clase de yoga con Camille es el domingo a las 9.",  # a one-off
    "Camille macht jetzt auch noch Yoga am Sonntag um 9.",  # an addition
    "Camille wollte den Yoga-Kurs auf Sonntag um 9 legen, aber der Saal war belegt.",  # an attempt
    "Camille hace yoga los sábados y ahora los domingos a las 9.",  # the earlier day still stands
    "Ahora el club de lectura es el domingo a las 9.",  # another subject
    "Camille moved yoga to Sunday at 9.",  # English: the English rules decide, not this one
])
def test_look_alikes_in_another_language_change_nothing(newer):
    assert changed_in_other_language(YOGA, newer) == 0.0


def test_the_earlier_value_restated_without_being_gone_keeps_it():
    assert changed_in_other_language(LUNCH, "Los viernes seguimos con Casa Pepe, ahora también con postre.") == 0.0
    assert changed_in_other_language(LUNCH, "Desde hoy el almuerzo del viernes viene de Casa Pepe y de Taquería Luna.") == 0.0


def test_a_spelling_variant_links_but_a_false_friend_does_not():
    assert linked_across_languages("Our flight to Tokyo leaves on April 12.", "Unser Flug nach Tokio geht jetzt am 19. April.")
    assert not linked_across_languages("Our night shift starts at 22:00.", "Das ist nicht mein Problem, die Schicht beginnt jetzt um 23 Uhr.")


def test_a_message_is_foreign_by_its_function_words():
    assert is_foreign("Der Termin ist jetzt am Mittwoch.") and is_foreign("la réunion est déplacée à mardi")
    assert not is_foreign("The meeting moved to Tuesday.") and not is_foreign(YOGA)
    assert says_changed("Ab sofort ist das Büro in Köln.") and not says_changed("Das Büro ist in Köln.")
    assert not says_changed("The office is in Cologne now.")


def test_two_statements_in_another_language_are_not_read_by_the_english_word_order_rules():
    # both French: the English key/value split reads "cours" as a shared key; another class, another teacher
    assert judge_update("Le cours de judo de Inès est le mardi à 18h, salle 23.",
                        "Camille a déplacé le cours de yoga au dimanche à 9h.", 0.6) is None
    # the English fact is still updated by the same French message
    assert judge_update("Yoga with Camille: Saturdays 10am", "Camille a déplacé le cours de yoga au dimanche à 9h.",
                        0.3) is not None


@pytest.mark.parametrize(("older", "newer"), [
    # the gloss says "the till of the bakery" for "the bakery's till": one noun phrase, not two subjects
    ("The bakery's till system is Square.", "Migramos la caja de la panadería a Toast, todo bien."),
    # "Oma" is the speaker's grandmother: "ihr" ("her") in the gloss is she, no one else
    ("My grandmother lives with my uncle in Porto.", "Oma wohnt jetzt in einem Pflegeheim in Braga, es geht ihr dort gut."),
    # "vou fazer" after "a partir da próxima semana" is the change announced, not a plan; "da", "às" are Portuguese
    ("Yoga class is on Tuesday evenings.",
     "Olá Ana, tudo bem? A partir da próxima semana vou fazer a aula de yoga às quintas-feiras à noite. Obrigada!"),
])
def test_changes_read_in_the_gloss(older, newer):
    assert judge_update(older, newer, 0.3) is not None


def test_going_to_is_a_plan_only_before_a_verb_and_without_a_from_when():
    from hindsight_core.lifecycle.update_languages import glossable

    older = "Yoga class is on Tuesday evenings."
    assert not glossable(older, "Vou fazer a aula de yoga às quintas-feiras, o que achas da ideia?")  # a plan
    assert glossable(older, "A partir da próxima semana vou fazer a aula de yoga às quintas-feiras.")
    assert glossable(older, "Desde este mes voy a yoga cuatro veces por semana, me encanta.")  # "I go to yoga"
    assert not glossable(older, "Este mes voy a probar el yoga de los jueves, me encanta la idea.")
    assert judge_update(older, "Olá Ana! Vou fazer a aula de yoga às quintas-feiras? Obrigada!", 0.2) is None


@pytest.mark.parametrize(("older", "newer"), [
    # a weekday said in Polish ("w czwartki": on Thursdays), from when on ("od przyszłego tygodnia")
    ("Jazz Hour goes out Mondays at 8pm.", "Hej! Od przyszłego tygodnia Jazz Hour będzie w czwartki o 20:00. – Ola"),
    # the earlier value named as gone ("zamiast": instead of)
    ("Sunday lunch at Gran's = Halina's roast chicken.", "W tę niedzielę i dalej robię gulasz zamiast kurczaka, Halina"),
    # a new date in a short message with no function word but Polish letters
    ("Dad's flying in for Easter — landing 14 April at Luton.",
     "Synku, zmieniłem lot — ląduję 12 kwietnia w Stansted, nie Luton. Tata"),
])
def test_changes_said_in_polish(older, newer):
    assert judge_update(older, newer, 0.2) is not None


@pytest.mark.parametrize("newer", [
    "Może od przyszłego tygodnia Jazz Hour będzie w czwartki.",  # maybe
    "Tylko w tym tygodniu Jazz Hour jest w czwartek zamiast poniedziałku.",  # just this week
    "Jeśli od przyszłego tygodnia Jazz Hour będzie w czwartki, Ola ma problem.",  # if
])
def test_look_alikes_in_polish_change_nothing(newer):
    assert judge_update("Jazz Hour goes out Mondays at 8pm.", newer, 0.2) is None


def test_polish_letters_make_a_short_message_foreign_but_not_one_name():
    assert is_foreign("Kochanie, zmieniłam bilet, przyjeżdżam pociągiem. Buziaki")
    assert not is_foreign("Łukasz moved the standup to 10:15 from Monday")
