"""The word table of :mod:`~hindsight_core.lifecycle.glossary`: everyday words of facts people keep
(people, places, times, food, health, work, money, tools), the change cues and the numbers, months and
weekdays, in Spanish, French, German, Portuguese and Italian (and, for the words of a change and its dates,
Polish).

One English word or phrase per line, then its forms in Spanish / French / German / Portuguese /
Italian (then Polish, on some lines), accents left off (they are folded before lookup; Polish "ł" stays).
A phrase of several words is written with "_"; a trailing "*" matches any ending (a stem). A form listed
twice keeps its first English word.
"""

TABLE = """
mother: madre mama mami / mere maman / mutter mama mutti / mae mamae / madre mamma / mama mamusia matka
father: padre papa / pere papa / vater papa vati / pai papai / padre papa babbo / tata ojciec
parents: padres / parents / eltern / pais / genitori
grandmother: abuela abuelita yaya / grand-mere mamie / oma omi grossmutter / avo avozinha vovo / nonna
grandfather: abuelo abuelito / grand-pere papi pepe / opa grossvater / avo vovo / nonno
grandparents: abuelos / grands-parents / grosseltern / avos / nonni
sister: hermana / soeur / schwester / irma / sorella
brother: hermano / frere / bruder / irmao / fratello
son: hijo / fils / sohn / filho / figlio
daughter: hija / fille / tochter / filha / figlia
kids: hijos ninos crios / enfants gamins / kinder / filhos criancas / figli bambini
child: nino nina / enfant / kind / crianca / bambino bambina
baby: bebe / bebe / baby / bebe nene / neonato
wife: esposa mujer / femme epouse / frau ehefrau / esposa mulher / moglie
husband: esposo marido / mari epoux / mann ehemann / marido / marito
partner: pareja novio novia / compagnon compagne conjoint conjointe copain copine / partner partnerin freund freundin / namorado namorada companheiro companheira / compagno compagna fidanzato fidanzata ragazzo ragazza
aunt: tia / tante tata / tante / tia / zia
uncle: tio / oncle tonton / onkel / tio / zio
first: primero primera / premier premiere / erste ersten erster / primeiro primeira / primo prima
cousin: / cousin cousine / cousin cousine vetter / / cugino cugina
family: familia / famille / familie / familia / famiglia
friend: amigo amiga / ami amie pote / kumpel / amigo amiga / amico amica
neighbour: vecino vecina / voisin voisine / nachbar nachbarin / vizinho vizinha / vicino vicina
boss: jefe jefa / chef cheffe patron patronne / chef chefin / chefe / capo
manager: gerente responsable director directora / responsable directeur directrice gerant gerante / leiter leiterin / gerente diretor diretora / responsabile direttore direttrice
colleague: companero companera colega / collegue / kollege kollegin / colega / collega
team: equipo / equipe / team mannschaft / equipe time / squadra
doctor: medico medica doctor doctora / medecin docteur toubib / arzt arztin / medico medica doutor doutora / medico dottore dottoressa
dentist: dentista / dentiste / zahnarzt zahnarztin / dentista / dentista
nurse: enfermero enfermera / infirmier infirmiere / pfleger pflegerin krankenschwester krankenpfleger / enfermeiro enfermeira / infermiere infermiera
nursing: enfermeria / soins / pflege / enfermagem / infermieristica
teacher: profesor profesora maestro maestra / professeur prof enseignant enseignante instituteur institutrice maitresse / lehrer lehrerin / professor professora / insegnante professore professoressa maestra
vet: veterinario veterinaria / veterinaire veto / tierarzt tierarztin / veterinario veterinaria / veterinario veterinaria
coach: entrenador entrenadora / entraineur entraineuse / trainer trainerin / treinador treinadora / allenatore allenatrice
physio: fisio fisioterapeuta / kine kinesitherapeute / physiotherapeut physiotherapeutin / fisioterapeuta fisio / fisioterapista
owner: dueno duena propietario propietaria / proprietaire / besitzer besitzerin inhaber inhaberin / dono dona proprietario / proprietario proprietaria
client: cliente / client cliente / kunde kundin / cliente / cliente
supplier: proveedor / fournisseur / lieferant anbieter / fornecedor / fornitore
company: empresa compania / entreprise societe / firma unternehmen / empresa firma / azienda ditta societa
office: oficina despacho / bureau / buro / escritorio / ufficio
job: trabajo empleo curro puesto / travail boulot emploi poste / arbeit job stelle / trabalho emprego / lavoro posto
works: trabaja / travaille bosse / arbeitet / trabalha / lavora
work: trabajar trabajo / travailler / arbeiten / trabalhar / lavorare
lives: vive / habite vit / wohnt lebt / mora vive / vive abita
lived: vivia vivian / habitait habitaient vivait vivaient / wohnte wohnten lebte lebten / morava moravam vivia / viveva vivevano abitava abitavano
live: vivir / habiter vivre / wohnen leben / morar viver / vivere abitare
home: casa hogar / maison domicile / zuhause haus / casa lar / casa
flat: piso apartamento departamento / appartement appart / wohnung / apartamento ape / appartamento
room: habitacion sala / chambre salle piece / zimmer raum / quarto sala / stanza camera sala
floor: planta / etage / stock etage stockwerk / andar / piano
building: edificio / batiment immeuble / gebaude / predio edificio / edificio palazzo
city: ciudad / ville / stadt / cidade / citta
town: pueblo / village bourg / dorf ort / vila / paese
street: calle / rue / strasse gasse / rua / via strada
gym: gimnasio / salle_de_sport / fitnessstudio / academia ginasio / palestra
opens: abre / ouvre / offnet / abre / apre
closes: cierra / / schliesst / / chiude
weekdays: entre_semana / en_semaine / unter_der_woche / durante_a_semana / nei_giorni_feriali
school: colegio escuela instituto / ecole college lycee / schule gymnasium / escola colegio / scuola liceo
hospital: hospital / hopital / krankenhaus klinik klinikum / hospital / ospedale
care_home: residencia / residence ehpad maison_de_retraite / pflegeheim altenheim seniorenheim / lar casa_de_repouso / casa_di_riposo rsa
station: estacion / gare / bahnhof / estacao / stazione
airport: aeropuerto / aeroport / flughafen / aeroporto / aeroporto
parking: aparcamiento parking garaje / parking / parkhaus parkplatz tiefgarage / estacionamento garagem / parcheggio
car: coche carro auto / voiture bagnole / auto wagen / carro / macchina auto
bike: bici bicicleta / velo / fahrrad rad / bicicleta bike / bici bicicletta
flight: vuelo / vol / flug / voo / volo
fly: volar vuelo vuela / voler / fliegen fliege fliegt / voar voo / volare volo
hotel: hotel / hotel / hotel / hotel / hotel albergo
trip: viaje / voyage sejour / reise / viagem / viaggio
holiday: vacaciones / vacances conges / urlaub ferien / ferias / vacanze ferie
booking: reserva / reservation / buchung reservierung / reserva / prenotazione
booked: reservado reservada reservamos / reserve reservee / gebucht reserviert / reservado reservada reservei / prenotato prenotata
ticket: billete entrada / billet / ticket fahrkarte / bilhete passagem ingresso / biglietto / bilet
train: tren / train / zug / trem comboio / treno / pociąg pociągiem
bus: autobus / bus autobus car / bus / onibus autocarro / autobus pullman / autobus autobusem autokar autokarem
meeting: reunion / reunion / besprechung sitzung treffen / reuniao / riunione
meet: quedamos quedar / retrouver retrouve retrouvons / treffen treffe / encontrar encontramo-nos encontramos / incontrare incontriamo vediamo
appointment: cita / rendez-vous rdv / termin / consulta / appuntamento
call: llamada / appel / anruf / ligacao chamada / chiamata
schedule: horario / horaire / zeitplan stundenplan / horario / orario
slot: franja hueco / creneau / termin / horario / fascia
class: clase curso / cours / kurs unterricht / aula curso / lezione corso
rehearsal: ensayo / repetition / probe / ensaio / prova
rehearse: ensayar ensayamos ensayan / repeter repetons / proben probt / ensaiar ensaiamos / provare proviamo
round: ronda / tournee visite / visite runde / ronda visita / giro
training: entrenamiento / entrainement / training / treino / allenamento
run: correr corro / courir / laufen laufe joggen / correr corro / correre corro
walk: paseo caminar / promenade balade marcher / spaziergang gehen / caminhada passeio / passeggiata
steps: pasos / / schritt schritte / passos / passi
goal: objetivo meta / objectif / ziel / objetivo meta / obiettivo
weight: peso / poids / gewicht / peso / peso
dose: dosis / dose / dosis / dose / dose
medication: medicamento medicina / medicament traitement / medikament / medicamento remedio / farmaco medicina
allergies: alergias / allergies / allergien / alergias / allergie
diet: dieta / regime alimentation / ernahrung diat / dieta / dieta
vegetarian: vegetariano vegetariana / vegetarien vegetarienne / vegetarier vegetarierin vegetarisch / vegetariano vegetariana / vegetariano vegetariana
vegan: vegano vegana / vegan vegane / veganer veganerin vegan / vegano vegana / vegano vegana
food: comida / nourriture bouffe / essen futter / comida / cibo
pet_food: pienso / / / racao / 
dry_food: pienso_seco / croquettes / trockenfutter / racao_seca / crocchette
wet_food: comida_humeda / patee / nassfutter / racao_umida / cibo_umido
dog: perro perra / chien chienne / hund hundin / cachorro cachorra cao / cane
cat: gato gata / chat chatte / katze kater / gato gata / gatto gatta
breakfast: desayuno / petit-dejeuner petit_dejeuner / fruhstuck / cafe_da_manha pequeno-almoco / colazione
lunch: almuerzo / dejeuner / mittagessen / almoco / pranzo / obiad obiadu
dinner: cena / diner / abendessen / jantar / cena / kolacja kolację
coffee: cafe / cafe / kaffee / cafe / caffe
tea: / / tee / cha /
milk: leche / lait / milch / leite / latte
sugar: azucar / sucre / zucker / acucar / zucchero
bread: pan / pain / brot / pao / pane
cake: tarta pastel / gateau / kuchen torte / bolo / torta
christmas: navidad / noel / weihnachten / natal / natale
birthday: cumpleanos / anniversaire / geburtstag / aniversario / compleanno
dish: plato / plat / gericht / prato / piatto
recipe: receta / recette / rezept / receita / ricetta
restaurant: restaurante / restaurant resto / restaurant lokal / restaurante / ristorante
order: pedido / commande / bestellung / pedido encomenda / ordine
we_order: pedimos / commandons / bestellen / pedimos encomendamos / ordiniamo
price: precio / prix tarif / preis / preco / prezzo
costs: cuesta vale / coute / kostet / custa / costa
budget: presupuesto / budget / budget etat / orcamento / budget
money: dinero / argent / geld / dinheiro / soldi
salary: sueldo salario / salaire / gehalt lohn / salario / stipendio
rent: alquiler / loyer / miete / aluguel renda / affitto
pay: pagar pagamos pagan / payer payons / zahlen bezahlen / pagar pagamos / pagare paghiamo
paid: pagado / paye / bezahlt / pago / pagato
rate: tarifa / tarif / satz tarif / tarifa taxa / tariffa
word: palabra / mot / wort / palavra / parola
per: por / par / pro je / por / per
week: semana / semaine / woche / semana / settimana / tydzień tygodnia tygodniu
weekly: semanal por_semana a_la_semana / hebdomadaire par_semaine / wochentlich pro_woche / semanal por_semana / settimanale a_settimana alla_settimana
month: / mois / monat / / mese
this_month: este_mes / ce_mois ce_mois-ci / diesen_monat / este_mes / questo_mese
last_month: el_mes_pasado mes_pasado / le_mois_dernier / letzten_monat / o_mes_passado no_mes_passado mes_passado / il_mese_scorso mese_scorso
next_month: el_mes_que_viene el_proximo_mes / le_mois_prochain / nachsten_monat / o_proximo_mes / il_mese_prossimo il_prossimo_mese
this_week: esta_semana / cette_semaine / diese_woche / esta_semana / questa_settimana
next_week: la_semana_que_viene la_proxima_semana / la_semaine_prochaine / nachste_woche nachsten_woche / a_proxima_semana / la_prossima_settimana / przyszły_tydzień przyszłym_tygodniu przyszłego_tygodnia
last_week: la_semana_pasada / la_semaine_derniere / letzte_woche letzten_woche / a_semana_passada / la_settimana_scorsa
this_year: este_ano / cette_annee / dieses_jahr / este_ano / quest'anno
per_month: al_mes por_mes cada_mes / par_mois / pro_monat im_monat / por_mes / al_mese
year: ano / annee / jahr / ano / anno
day: dia / jour journee / tag / dia / giorno
daily: diario diaria al_dia por_dia / quotidien quotidienne par_jour / taglich am_tag pro_tag / diario diaria por_dia ao_dia / quotidiano quotidiana al_giorno
morning: manana / matin matinee / morgen vormittag / manha / mattina
evening: noche / soir soiree / abend / noite /
night: noche / nuit / nacht / noite / notte
afternoon: tarde / apres-midi / nachmittag / tarde / pomeriggio
hour: hora / heure / stunde / hora /
times: veces / fois / mal / vezes / volte
date: fecha / date / datum / data / data
deadline: plazo / delai echeance date_limite / frist abgabetermin / prazo / scadenza
due: vence entregar presentar / a_rendre / fallig abzugeben / entregar / consegnare
draft: borrador / brouillon / entwurf / rascunho / bozza
thesis: tesis / these memoire / abschlussarbeit dissertation / tese / tesi
tax_return: declaracion declaracion_de_la_renta / declaration_d'impots / steuererklarung / declaracao / dichiarazione_dei_redditi
tax: impuestos renta / impots / steuer steuern / impostos / tasse
application: solicitud / dossier candidature demande / antrag bewerbung / candidatura pedido / domanda candidatura
grant: subvencion beca / subvention bourse / forderung zuschuss stipendium / subsidio bolsa / finanziamento contributo
project: proyecto / projet / projekt / projeto / progetto
status: estado / statut etat / status stand / estado / stato
phase: fase etapa / phase etape / phase / fase etapa / fase
done: terminado hecho acabado listo / fini termine fait / fertig erledigt abgeschlossen / pronto terminado feito concluido / finito fatto concluso
blocked: bloqueado / bloque / blockiert / bloqueado / bloccato
unblocked: desbloqueado / debloque / freigegeben entsperrt / desbloqueado / sbloccato
resumed: reanudado reanudada retomado retomada / repris reprise / wiederaufgenommen / retomado retomada / ripreso ripresa
paused: pausado parado / suspendu / pausiert / pausado parado / sospeso
cancelled: cancelado cancelada anulado anulada / annule annulee / abgesagt storniert gestrichen / cancelado cancelada / cancellato cancellata annullato
closed: cerrado cerrada cerro / ferme fermee / geschlossen / fechado fechada fechou / chiuso chiusa
released: lanzado publicado / lance publie sorti / veroffentlicht / lancado publicado / rilasciato pubblicato
version: version / version / version / versao / versione
upgrade: actualizacion / mise_a_jour / aktualisierung / atualizacao / aggiornamento
news: novedad noticia / nouvelle nouveaute / neuigkeit / novidade noticia / novita notizia
app: aplicacion / appli application / anwendung / aplicativo / applicazione
tool: herramienta / outil / werkzeug / ferramenta / strumento
notes: notas apuntes / notes / notizen / notas / appunti
note: nota / note / notiz / nota / nota
server: servidor / serveur / server / servidor / server
database: base_de_datos / base_de_donnees base / datenbank / banco_de_dados / base_di_dati
backups: copias copias_de_seguridad respaldos / sauvegardes / sicherungen / copias / copie
repository: repositorio / depot / repo / repositorio / repository
password: contrasena / mot_de_passe / passwort kennwort / senha / password
system: sistema / systeme / system / sistema / sistema
till: caja / caisse / kasse / caixa / cassa
shop: tienda / boutique magasin / laden geschaft / loja / negozio
bakery: panaderia / boulangerie / backerei / padaria / panetteria
keys: llaves / cles / schlussel / chaves / chiavi
drawer: cajon / tiroir / schublade / gaveta / cassetto
box: caja / boite / kiste dose / caixa / scatola
music: musica / musique / musik / musica / musica
colour: color / couleur / farbe / cor / colore
favourite: favorito favorita preferido preferida / prefere preferee favori favorite / lieblings* / preferido preferida favorito favorita / preferito preferita
prefer: prefiero prefiere preferimos / prefere preferons / bevorzuge bevorzugt / prefiro prefere / preferisco preferisce
likes: gusta / aime / mag / gosta / piace
wants: quiere / veut / will mochte / quer / vuole
steak: filete bistec / steak / steak / bife / bistecca
chairs: sillas / chaises / stuhle / cadeiras / sedie
storage: almacen trastero / reserve local stockage / lager / deposito armazem / magazzino
inventory: inventario / inventaire / inventar bestand / inventario / inventario
cleaning: limpieza / menage nettoyage / reinigung putzen / limpeza faxina / pulizie pulizia
help_desk: soporte / assistance support / helpdesk hilfe / suporte / sportello assistenza
files: archivos ficheros / fichiers / dateien / arquivos / file
source: fuente / source / quelle / fonte / fonte
now: ahora ya / maintenant desormais / jetzt nun inzwischen mittlerweile / agora / ora adesso ormai / teraz obecnie
from_now_on: de_ahora_en_adelante a_partir_de_ahora desde_ahora / a_partir_de_maintenant dorenavant / ab_sofort ab_jetzt von_nun_an / de_agora_em_diante a_partir_de_agora / d'ora_in_poi da_ora_in_poi da_adesso / od_teraz od_dziś od_dzisiaj od_jutra
from: a_partir_del a_partir_de desde / a_partir_du a_partir_de des / ab / a_partir_do a_partir_da a_partir_de desde / a_partire_da dal dalla / od
no_longer: ya_no / ne_plus n'est_plus / nicht_mehr kein_mehr / nao_mais ja_nao / non_piu / już_nie
instead_of: en_vez_de en_vez_del en_lugar_de en_lugar_del / au_lieu_de au_lieu_du au_lieu_des / statt anstatt / em_vez_de em_vez_do em_vez_da ao_inves_de / invece_di invece_del invece_della al_posto_di al_posto_del / zamiast
instead: en_cambio / plutot / stattdessen / em_vez_disso / invece
moved: mudado mudamos mudaron traslado trasladado trasladada traslada / demenage demenagee deplace deplacee / umgezogen gezogen verlegt / mudou mudaram mudamos mudaram-se / trasferito trasferita trasferisce spostato spostata traslocato / przeniesiony przeniesiona przeniesione przenieśliśmy przeniósł przeniosła przeprowadził przeprowadziła przeprowadzili przesunięty przesunięta przesunięte
migrated: migramos migrado migrada migraron / migre migree migres / migriert / migramos migrado migrada migraram / migrato migrata migrati
switched: cambiado cambie cambiamos cambio / change passe / gewechselt umgestiegen umgestellt / trocou troquei trocamos mudei / cambiato passato
changed: cambiado modificado / change modifie / geandert / mudado alterado / cambiato modificato / zmieniony zmieniona zmienione zmieniłam zmieniłem zmieniliśmy zmienił zmieniła zmienili
change: cambio / changement / anderung wechsel / mudanca / cambio
new: nuevo nueva nuevos nuevas / nouveau nouvelle nouveaux nouvelles nouvel / neu neue neuer neues neuen / novo nova novos novas / nuovo nuova nuovi nuove / nowy nowa nowe nowi nowego nową
old: viejo vieja antiguo antigua anterior / ancien ancienne vieux vieille / alt alte alter altes alten / antigo antiga velho velha / vecchio vecchia precedente
raised: subido subio aumentado aumento / augmente / erhoht hochgesetzt hochsetzen / aumentado aumentou subiu / aumentato alzato
lowered: bajado bajo reducido recorto / baisse reduit / gesenkt reduziert / reduzido baixou / ridotto abbassato
postponed: aplazado pospuesto retrasado / repousse reporte decale / verschoben / adiado / rinviato posticipato
correction: correccion / correction / korrektur / correcao / correzione
lately: ultimamente ultimamente / dernierement ces_temps-ci / in_letzter_zeit neuerdings / ultimamente / ultimamente
finally: al_final finalmente / finalement enfin / schliesslich endlich doch / afinal finalmente / alla_fine finalmente
no: / non / nein / / 
well: bien / bien / gut / bem / bene
nothing: nada / rien / nichts / nada / niente
switched_off: apagado / eteint coupe / abgeschaltet ausgeschaltet / desligado / spento
always: siempre / toujours / immer / sempre / sempre
usually: normalmente / d'habitude habituellement / normalerweise meistens / normalmente geralmente / di_solito
became: se_hizo se_volvio / devenu devenue / geworden / virou tornou-se / diventato diventata
left: dejo dejado / quitte / verlassen gekundigt / saiu deixou largou / lasciato
starts: empieza comienza / commence / beginnt / comeca / inizia comincia
says: dice / dit / sagt meint / diz / dice
said: dijo / a_dit / sagte / disse / ha_detto
tried: intente intentamos intento intentaron / essaye essayons essaye / versucht probiert / tentei tentamos tentou / provato tentato
if: si / si / wenn falls / /
maybe: quizas quiza tal_vez / peut-etre / vielleicht / talvez / forse
also: tambien ademas / aussi / auch zusatzlich / tambem / anche
only: solo solamente / seulement juste / nur / apenas / solo soltanto
should: deberia / devrait / sollte / deveria / dovrebbe
would: seria / serait / / seria / sarebbe
was: fue era estaba / etait fut / war wurde / foi era estava / era fu
going_to: voy_a vamos_a / vais allons / werde werden / vou vamos / vado_a andiamo_a
still: todavia aun sigue / encore toujours / noch immer_noch / ainda / ancora
again: otra_vez de_nuevo / encore / wieder / de_novo outra_vez / di_nuovo ancora
has: ha / / hat / tem / ha
have: hemos / avons / haben habe / temos / abbiamo
for: / pour / fur / / 
i: yo / je moi / ich / eu / io
we: nosotros nosotras / nous / wir / nos / noi
he: / / er / ele / lui
she: ella / elle / sie / ela / lei
they: ellos ellas / ils elles / / eles elas / loro
with: con / avec / mit / com / con
without: sin / sans / ohne / sem / senza
my: mi mis / mon ma mes / mein meine meinen meinem meiner / meu minha meus minhas / mio mia miei mie
our: nuestro nuestra nuestros nuestras / notre nos / unser unsere unseren unserem / nosso nossa nossos nossas / nostro nostra nostri nostre
his: su sus / son sa ses / sein seine seinen / seu sua dele / suo sua
her: su sus / son sa ses / ihr ihre ihren / dela / suo sua
the: el la los las / le la les l' / der die das den dem des / o os as / il lo la i gli le l'
a: un una / un une / ein eine einen einem einer / um uma / un una uno
in: en / dans en / in im / em na nos nas / in nel nella
at: en / chez / bei beim am / em na / al alla
to: a al / a au aux / nach zu zum zur / para pra ao / a al alla
of: de del / de du des d' / von vom / de do da dos das / di del della dei
and: y e / et / und / e / e ed
but: pero / mais / aber / mas / ma
that: que / que qu' / dass / que / che
is: es esta / est / ist / e esta / e
are: son estan / sont / sind / sao estao / sono
this: este estos estas / ce cette ces cet / dieser diese dieses diesen / este estes estas / questo questa questi queste
not: no / pas ne / nicht kein keine / nao / non / nie
one: uno una / un une / eins / um uma / uno
two: dos / deux / zwei / dois duas / due
three: tres / trois / drei / tres / tre
four: cuatro / quatre / vier / quatro / quattro
five: cinco / cinq / funf / cinco / cinque
six: seis / six / sechs / seis / sei
seven: siete / sept / sieben / sete / sette
eight: ocho / huit / acht / oito / otto
nine: nueve / neuf / neun / nove / nove
ten: diez / dix / zehn / dez / dieci
twelve: doce / douze / zwolf / doze / dodici
twenty: veinte / vingt / zwanzig / vinte / venti
thousand: mil / mille / tausend / mil / mille
last: pasado pasada ultimo ultima / dernier derniere / letzte letzten letzter / passado passada ultimo ultima / scorso scorsa ultimo ultima
next: proximo proxima que_viene / prochain prochaine / nachste nachsten nachster / proximo proxima que_vem / prossimo prossima / przyszły przyszła przyszłe przyszłego przyszłym następny następna następnego
today: hoy / aujourd'hui / heute / hoje / oggi / dziś dzisiaj
yesterday: ayer / hier / gestern / ontem / ieri / wczoraj
tomorrow: manana / demain / morgen / amanha / domani / jutro
monday: lunes / lundi / montag montags / segunda segunda-feira segundas / lunedi / poniedziałek poniedziałki poniedziałkowy
tuesday: martes / mardi / dienstag dienstags / terca terca-feira tercas / martedi / wtorek wtorki wtorkowy
wednesday: miercoles / mercredi / mittwoch mittwochs / quarta quarta-feira quartas / mercoledi / środa środę środy środach
thursday: jueves / jeudi / donnerstag donnerstags / quinta quinta-feira quintas quintas-feiras / giovedi / czwartek czwartki czwartkowy
friday: viernes / vendredi / freitag freitags / sexta sexta-feira sextas / venerdi / piątek piątki piątkowy piątkowe piątkowa
saturday: sabado / samedi / samstag samstags sonnabend / sabado / sabato / sobota sobotę soboty sobotni
sunday: domingo / dimanche / sonntag sonntags / domingo / domenica / niedziela niedzielę niedziele niedzieli
january: enero / janvier / januar janner / janeiro / gennaio / styczeń stycznia
february: febrero / fevrier / februar / fevereiro / febbraio / luty lutego
march: marzo / mars / marz / marco / marzo / marzec marca
april: abril / avril / april / abril / aprile / kwiecień kwietnia
may: mayo / mai / mai / maio / maggio / maj maja
june: junio / juin / juni / junho / giugno / czerwiec czerwca
july: julio / juillet / juli / julho / luglio / lipiec lipca
august: agosto / aout / august / agosto / agosto / sierpień sierpnia
september: septiembre setiembre / septembre / september / setembro / settembre / wrzesień września
october: octubre / octobre / oktober / outubro / ottobre / październik października
november: noviembre / novembre / november / novembro / novembre / listopad listopada
december: diciembre / decembre / dezember / dezembro / dicembre / grudzień grudnia
"""
