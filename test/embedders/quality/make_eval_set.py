"""Builds the retrieval-quality set used to compare embedders: eval-set.json beside this file.

Personal-memory facts (the kind of passage Engram stores), each question worded differently from its
passage so that a purely lexical match is not enough: "What does Maya eat in the morning?" must find
"Maya usually has oatmeal with berries before work". Every fact type is used for six people, so the
same name appears in many passages (a name alone does not find the answer) and the same topic
appears for many people (a topic alone does not find it either). Filler sentences pad passages to a
realistic length, and unrelated passages are mixed in.

eval-set.json has short passages (about 150 characters: the fact and one to three fillers);
eval-set-long.json has facts and questions of the same kinds in passages of about 750 characters, near Engram's
passage size, padded with unrelated sentences.

Deterministic (fixed seed); standard library only.
    python3 test/embedders/quality/make_eval_set.py
"""

import json
import random
from pathlib import Path

SEED = 20240607
PEOPLE_PER_FACT = 6
QUESTIONS_PER_FACT = 4

NAMES = [
    "Maya", "Tom", "Priya", "Lucas", "Hannah", "Omar", "Sofia", "Daniel", "Aisha", "Ben",
    "Chloe", "Mateo", "Grace", "Ivan", "Nora", "Kenji", "Lena", "Samuel", "Zoe", "Rafael",
    "Ingrid", "Kwame", "Elena", "Felix",
]

# (passage templates, question templates, values). {n} is the person, {v} the value.
FACTS = [
    (["{n} usually has {v} before heading out in the morning.", "Most days {n} starts with {v} at the kitchen table."],
     ["What does {n} like for breakfast?", "What is {n}'s usual first meal of the day?"],
     ["oatmeal with berries", "scrambled eggs on toast", "a bowl of yogurt and granola", "pancakes with maple syrup", "miso soup and rice", "a banana smoothie"]),
    (["{n} is allergic to {v} and carries an antihistamine everywhere.", "Doctors told {n} to avoid {v} after a bad reaction last year."],
     ["Which allergy does {n} have?", "What food or substance makes {n} ill?"],
     ["peanuts", "shellfish", "penicillin", "cat dander", "bee stings", "latex"]),
    (["{n}'s dog is called {v}; they walk to the park every evening.", "{n} adopted a rescue puppy and named it {v}."],
     ["What is the name of {n}'s pet?", "What did {n} call the animal they took home?"],
     ["Biscuit", "Pepper", "Captain", "Noodle", "Juniper", "Rocket"]),
    (["{n} works as {v} at a mid-sized company downtown.", "For the last six years {n} has been employed as {v}."],
     ["What is {n}'s job?", "How does {n} earn a living?"],
     ["a tax accountant", "a nurse in the cardiology ward", "a backend software engineer", "a high school chemistry teacher", "an architect", "a pastry chef"]),
    (["{n} was born in {v} and moved away at eighteen.", "{n} grew up in {v} before the family relocated."],
     ["Where is {n} originally from?", "What is {n}'s hometown?"],
     ["Lisbon", "Nairobi", "Osaka", "Toronto", "Kraków", "Valparaíso"]),
    (["{n}'s birthday is on {v}, and a cake is always ordered from the corner bakery.", "Every year on {v} {n} throws a small party."],
     ["When does {n} celebrate turning a year older?", "What date is {n}'s birthday?"],
     ["March 14", "July 2", "October 30", "January 9", "August 21", "December 5"]),
    (["{n} plays {v} in a community orchestra on Thursdays.", "{n} has been practising {v} since childhood."],
     ["Which musical instrument does {n} play?", "What instrument has {n} learned?"],
     ["the cello", "the violin", "the trumpet", "the clarinet", "the double bass", "the flute"]),
    (["{n} drives {v} that is getting old and rattles on the highway.", "{n} finally bought {v} last spring."],
     ["What kind of car does {n} own?", "What vehicle does {n} have?"],
     ["a blue Volvo estate", "a red Honda Civic", "a second-hand Tesla Model 3", "a Ford pickup truck", "a tiny Fiat 500", "a grey Toyota Prius"]),
    (["{n} is training for {v} and runs five times a week.", "{n} signed up for {v} and has a strict training plan."],
     ["What athletic event is {n} preparing for?", "Which race has {n} entered?"],
     ["the Berlin marathon", "a half marathon in October", "a sprint triathlon", "a 100 km ultra trail race", "the city 10K", "an Ironman in Austria"]),
    (["{n}'s favourite novel is {v}; the copy on the shelf is falling apart.", "{n} rereads {v} every winter."],
     ["Which book does {n} love most?", "What is {n}'s best-loved piece of fiction?"],
     ["One Hundred Years of Solitude", "Pride and Prejudice", "The Left Hand of Darkness", "Moby-Dick", "The Remains of the Day", "Dune"]),
    (["{n} speaks {v} fluently thanks to a year abroad.", "{n} is taking evening classes to improve their {v}."],
     ["What foreign language does {n} know?", "Which language is {n} learning or speaking besides English?"],
     ["Portuguese", "Japanese", "German", "Arabic", "Swahili", "Korean"]),
    (["{n} is vegetarian and never eats {v}.", "{n} stopped eating {v} for ethical reasons."],
     ["What does {n} refuse to eat?", "Which food has {n} given up?"],
     ["meat of any kind", "fish", "pork", "beef", "chicken", "dairy products"]),
    (["{n}'s flight to {v} leaves on Friday at 7 am from terminal 2.", "{n} booked plane tickets to {v} for the holidays."],
     ["Where is {n} travelling to?", "What is the destination of {n}'s upcoming trip?"],
     ["Reykjavik", "Buenos Aires", "Hanoi", "Cape Town", "Montreal", "Athens"]),
    (["{n} keeps the spare house key {v}.", "If you are locked out, {n}'s extra key is {v}."],
     ["Where can I find {n}'s spare key?", "Where is {n}'s backup key hidden?"],
     ["under the blue flower pot", "with the neighbour at number 12", "in the garage toolbox", "taped behind the mailbox", "in a lockbox by the back door", "inside the fake rock in the garden"]),
    (["{n}'s sister {v} lives in Denver and has two kids.", "{n} has one sibling, a sister named {v}."],
     ["What is the name of {n}'s sister?", "Who is {n}'s sibling?"],
     ["Rosa", "Imani", "Beatrice", "Yuki", "Dana", "Leila"]),
    (["{n} takes {v} every night for blood pressure.", "The doctor prescribed {v} to {n} after the check-up."],
     ["What medication is {n} on?", "Which pills does {n} need to take?"],
     ["lisinopril", "amlodipine", "metoprolol", "losartan", "atenolol", "hydrochlorothiazide"]),
    (["{n}'s wifi password is {v}.", "To get online at {n}'s flat, use the network key {v}."],
     ["How do I connect to the internet at {n}'s place?", "What is the password for {n}'s wireless network?"],
     ["sunflower-42", "blue-otter-77", "correcthorse99", "moonlight_2020", "k1tchen-table", "orchard-5566"]),
    (["{n} supports {v} and never misses a home match.", "{n} has had a season ticket for {v} for a decade."],
     ["Which football team does {n} follow?", "What club is {n} a fan of?"],
     ["Arsenal", "Boca Juniors", "Bayern Munich", "Celtic", "Ajax", "Benfica"]),
    (["{n} cannot stand {v} and leaves the room when it comes up.", "{n} has a real phobia of {v}."],
     ["What is {n} afraid of?", "What scares {n}?"],
     ["spiders", "heights", "deep water", "thunderstorms", "needles", "clowns"]),
    (["{n} drinks {v} all afternoon while working.", "There is always {v} on {n}'s desk."],
     ["What is {n}'s favourite beverage?", "What does {n} like to sip during the day?"],
     ["green tea", "black coffee", "sparkling water", "chai latte", "iced lemon tea", "hot chocolate"]),
    (["{n} is renovating the {v} and the contractor starts Monday.", "{n} is saving money to redo the {v}."],
     ["Which part of the house is {n} remodelling?", "What home improvement project does {n} have?"],
     ["bathroom", "kitchen", "attic", "basement", "garden shed", "front porch"]),
    (["{n}'s dentist appointment is on {v} at 3 pm.", "{n} has a dental check-up booked for {v}."],
     ["When does {n} see the dentist?", "When is {n}'s next teeth cleaning?"],
     ["the 4th of May", "next Tuesday", "the 18th of June", "Thursday morning", "the 2nd of September", "the last Friday of the month"]),
    (["{n} studied {v} at university.", "{n} holds a degree in {v}."],
     ["What did {n} major in?", "What subject was {n}'s college education in?"],
     ["mechanical engineering", "art history", "marine biology", "economics", "philosophy", "computer science"]),
    (["{n} is married to {v}, whom they met at a wedding.", "{n}'s husband {v} is a firefighter."],
     ["Who is {n}'s spouse?", "What is the name of {n}'s partner?"],
     ["Marcus", "Julian", "Andre", "Tobias", "Hugo", "Wesley"]),
    (["{n} grows {v} on the balcony every summer.", "{n}'s garden is full of {v}."],
     ["What plants does {n} cultivate?", "What does {n} grow at home?"],
     ["tomatoes and basil", "roses", "chili peppers", "strawberries", "sunflowers", "succulents"]),
    (["{n} owes the bank {v} on the mortgage.", "{n} still has {v} left to pay on the house loan."],
     ["How much debt does {n} have on the home?", "What is the remaining balance of {n}'s mortgage?"],
     ["about 180,000 euros", "roughly 95,000 dollars", "240,000 pounds", "around 60,000 dollars", "310,000 euros", "just under 120,000 pounds"]),
    (["{n} bikes to work along the river path, about {v} each way.", "{n}'s commute by bicycle is {v}."],
     ["How far does {n} travel to the office?", "How long is {n}'s trip to work?"],
     ["twelve kilometres", "twenty minutes", "eight miles", "half an hour", "five kilometres", "forty minutes"]),
    (["{n} collects {v} and has hundreds of them.", "{n}'s hobby is collecting {v}."],
     ["What does {n} collect?", "What items does {n} hoard as a pastime?"],
     ["vinyl records", "stamps", "vintage cameras", "comic books", "seashells", "antique maps"]),
    (["{n} volunteers at {v} on weekends.", "Every Saturday {n} helps out at {v}."],
     ["Where does {n} do charity work?", "What organisation does {n} give time to?"],
     ["the animal shelter", "the food bank", "a homeless kitchen", "the public library", "a children's hospital", "the local museum"]),
    (["{n} lost {v} on the train last week and is still upset.", "{n} misplaced {v} somewhere in the station."],
     ["What did {n} lose recently?", "Which belonging went missing for {n}?"],
     ["a leather wallet", "their phone", "a laptop bag", "a silver watch", "their passport", "a set of house keys"]),
    (["{n}'s favourite film is {v}; they can quote every line.", "{n} has watched {v} more than twenty times."],
     ["What movie does {n} like best?", "Which film is {n} obsessed with?"],
     ["Casablanca", "Spirited Away", "The Godfather", "Amélie", "Jurassic Park", "Parasite"]),
    (["{n} has a tattoo of {v} on the left forearm.", "{n} got {v} inked on their shoulder."],
     ["What tattoo does {n} have?", "What design is on {n}'s skin?"],
     ["a compass", "a swallow", "a mountain range", "a koi fish", "their grandmother's initials", "a small anchor"]),
    (["{n} is lactose intolerant, so order {v} for them.", "{n} only drinks coffee with {v}."],
     ["What milk should I get for {n}?", "What does {n} put in their coffee?"],
     ["oat milk", "almond milk", "soy milk", "lactose-free milk", "coconut milk", "rice milk"]),
    (["{n} wears size {v} shoes.", "When buying boots for {n}, get a size {v}."],
     ["What is {n}'s shoe size?", "What size footwear fits {n}?"],
     ["42", "38", "11", "7", "44", "9"]),
    (["{n} is learning to {v} with an online course.", "{n} took up {v} as a new hobby this year."],
     ["What new skill is {n} picking up?", "What is {n} trying to get good at lately?"],
     ["bake sourdough", "code in Python", "paint with watercolours", "knit", "play chess", "do woodworking"]),
    (["{n} has {v} kids, all in primary school.", "{n} is a parent of {v} children."],
     ["How many children does {n} have?", "How big is {n}'s family?"],
     ["two", "three", "four", "five", "six", "seven"]),
    (["{n} is moving to a new apartment in {v} next month.", "{n} signed a lease for a flat in {v}."],
     ["Where will {n} live soon?", "Which neighbourhood is {n} relocating to?"],
     ["Brooklyn", "Kreuzberg", "Shoreditch", "the Latin Quarter", "Shibuya", "Palermo Soho"]),
    (["{n} prefers {v} holidays over anything else.", "For vacations {n} always chooses {v}."],
     ["What type of vacation does {n} enjoy?", "How does {n} like to spend time off?"],
     ["camping", "beach", "skiing", "city sightseeing", "cruise", "hiking"]),
    (["{n}'s blood type is {v}.", "The hospital records show {n} is {v}."],
     ["What blood group is {n}?", "Which blood type would {n} need in a transfusion?"],
     ["O negative", "A positive", "B positive", "AB negative", "O positive", "A negative"]),
    (["{n} owes me {v} for the concert tickets.", "I lent {n} {v} last month and have not been paid back."],
     ["How much money does {n} owe me?", "What amount do I need to get back from {n}?"],
     ["40 dollars", "25 euros", "60 pounds", "15 dollars", "80 euros", "120 dollars"]),
    (["{n}'s favourite colour is {v}; the whole bedroom is painted that way.", "Anything {v} makes {n} happy."],
     ["What colour does {n} like most?", "Which hue is {n}'s favourite?"],
     ["teal", "mustard yellow", "forest green", "lavender", "burgundy", "navy blue"]),
    (["{n} is a night owl and rarely sleeps before {v}.", "{n} usually goes to bed around {v}."],
     ["When does {n} go to sleep?", "What time does {n} turn in at night?"],
     ["2 am", "midnight", "1 am", "11 pm", "10 pm", "3 am"]),
    (["{n} had {v} surgery in the spring and is still recovering.", "{n} is on leave after an operation on the {v}."],
     ["What medical procedure did {n} undergo?", "Why was {n} in the hospital?"],
     ["knee", "appendix", "shoulder", "hip", "gallbladder", "spine"]),
    (["{n} likes {v} music and goes to gigs every month.", "{n}'s playlists are all {v}."],
     ["What genre of music does {n} listen to?", "What sort of songs does {n} enjoy?"],
     ["jazz", "heavy metal", "reggaeton", "classical", "folk", "techno"]),
    (["{n} keeps the tax documents {v}.", "All of {n}'s paperwork for the tax office is {v}."],
     ["Where are {n}'s tax papers stored?", "Where does {n} file receipts and returns?"],
     ["in the grey filing cabinet", "in a shoebox under the bed", "in a folder on the cloud drive", "in the top desk drawer", "at the accountant's office", "in the safe in the closet"]),
    (["{n}'s favourite restaurant is {v}, a small place near the station.", "{n} always suggests dinner at {v}."],
     ["Where does {n} like to eat out?", "Which place does {n} recommend for a meal?"],
     ["Trattoria Sole", "Golden Lotus", "El Farolito", "Café Minsk", "The Copper Pot", "Sakura House"]),
    (["{n} broke {v} skiing and wore a cast for six weeks.", "{n} fractured {v} in a cycling accident."],
     ["Which bone did {n} injure?", "What did {n} break?"],
     ["a wrist", "a collarbone", "an ankle", "two ribs", "a leg", "a finger"]),
    (["{n} is saving up for {v}.", "{n}'s big goal this year is to afford {v}."],
     ["What is {n} putting money aside for?", "What purchase is {n} budgeting towards?"],
     ["a sailing boat", "a trip to Japan", "a new roof", "a wedding", "an electric bike", "a down payment on a house"]),
    (["{n} meditates for {v} every morning.", "{n}'s daily mindfulness practice lasts {v}."],
     ["How long does {n} meditate?", "How much time does {n} spend on mindfulness?"],
     ["ten minutes", "half an hour", "twenty minutes", "an hour", "fifteen minutes", "five minutes"]),
    (["{n} wants to name the baby {v} if it is a girl.", "{n} has picked {v} as the name for their daughter."],
     ["What name has {n} chosen for the baby?", "What will {n}'s child be called?"],
     ["Olivia", "Amara", "Clara", "Hazel", "Naomi", "Freya"]),
]

FILLERS = [
    "{n} mentioned this during a phone call on Sunday.",
    "This came up while we were chatting over lunch.",
    "I wrote this down so I would not forget it.",
    "{n} said it twice, so it seems important.",
    "We talked about it at the neighbourhood barbecue.",
    "The conversation drifted to the weather afterwards.",
    "{n} laughed about it and changed the subject.",
    "It was a busy week and everyone was tired.",
    "I should remind myself of this before we meet again.",
    "{n} sent a message about it late in the evening.",
    "It turned out to be a long and pleasant afternoon.",
    "Someone else at the table had a similar story.",
]

UNRELATED = [
    "The quarterly report shows revenue grew by four percent while costs stayed flat.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The car needs new tyres before the winter inspection.",
    "Rain is expected over the weekend with strong winds along the coast.",
    "The meeting about the server migration was moved to Wednesday afternoon.",
    "Remember to water the office plants and empty the recycling bin.",
    "The museum's new exhibit covers the history of printing in Europe.",
    "A firmware update fixed the printer's paper jam problem.",
    "The city council approved a budget for repaving the main road.",
    "Volcanic soil is rich in minerals, which makes it good for vineyards.",
    "The train timetable changes on the first Sunday of December.",
    "Our team retrospective highlighted slow code reviews as a bottleneck.",
    "The library extends opening hours during exam season.",
    "Compound interest grows savings faster the earlier you start.",
    "The hiking trail was closed after the landslide in April.",
    "Bread rises because yeast produces carbon dioxide gas.",
    "The new policy requires two-factor authentication for all staff accounts.",
    "Electric kettles use less energy than boiling water on a gas stove.",
    "The chess club meets in the community centre basement.",
    "Jupiter has dozens of moons, the largest being Ganymede.",
]


def build(long: bool) -> dict:
    rng = random.Random(SEED)
    passages: list[dict] = []
    questions: list[dict] = []
    for fi, (ptemps, qtemps, values) in enumerate(FACTS):
        assert len(values) == PEOPLE_PER_FACT, fi
        names = rng.sample(NAMES, PEOPLE_PER_FACT)
        for k, (name, value) in enumerate(zip(names, values)):
            fact = rng.choice(ptemps).format(n=name, v=value)
            fact = fact[0].upper() + fact[1:]
            fillers = [f.format(n=name) for f in rng.sample(FILLERS, rng.randint(1, 3))]
            if long:
                # About 800 characters, Engram's passage size: the fact is one sentence in ten or so.
                fillers += rng.sample(UNRELATED, 10)
            sentences = fillers + [fact]
            rng.shuffle(sentences)
            pid = len(passages)
            passages.append({"id": pid, "text": " ".join(sentences)})
            if k < QUESTIONS_PER_FACT:
                questions.append({"question": rng.choice(qtemps).format(n=name), "passage": pid})
    for text in UNRELATED:
        passages.append({"id": len(passages), "text": text})
    mean = sum(len(p["text"]) for p in passages) / len(passages)
    return {
        "about": "Generated by make_eval_set.py (seed %d%s): %d questions, %d passages of %.0f characters on average."
        % (SEED, ", long" if long else "", len(questions), len(passages), mean),
        "passages": passages,
        "questions": questions,
    }


def main() -> None:
    for name, long in (("eval-set.json", False), ("eval-set-long.json", True)):
        out = build(long)
        path = Path(__file__).with_name(name)
        path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(out["about"], "->", path)


if __name__ == "__main__":
    main()
