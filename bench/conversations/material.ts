/**
 * Hand-written material for the conversational benchmark: names, personas' attributes, life events
 * and small talk. Fact lines are said in the first person; most questions reuse a few of a turn's
 * words (ATTRIBUTE_ECHOES, EVENT_ECHOES), the rest ask in other words (the question says
 * "instrument", the turn "my cello"). generate.ts draws from these with a seeded generator.
 * Placeholders: {v} the value, {av} it after "a" or "an", {N} a name (pet, relative, band, place),
 * {when} a time relative to the session's date, {P} the person asked about, {their}/{they}/{them}
 * their pronouns, {aunt} aunt or uncle, {O} the other speaker.
 */

export const SPEAKER_NAMES: { name: string; pronoun: 'she' | 'he' }[] = [
  ...'Caroline Melanie Priya Joanna Deborah Audrey Nadia Rosa Tamsin Evelyn Gina Maribel Lucia Harriet Yasmin Ingrid'
    .split(' ')
    .map((name) => ({ name, pronoun: 'she' as const })),
  ...'Jolene Calvin Dario Tobias Hamid Everett Rafael Brendan Kofi Lennart Mateo Sullivan Ambrose Desmond Oskar Nikhil'
    .split(' ')
    .map((name) => ({ name, pronoun: 'he' as const })),
];

/** Relatives, friends and partners: people who are talked about but never speak. */
export const OTHER_NAMES: Record<'she' | 'he', string[]> = {
  she: 'Dana Elodie Greta Iris Kira Mira Opal Rhea Thea Vera Wren Yara Bianca Delia Fiona Hazel June Lila Nora Pia'.split(
    ' ',
  ),
  he: 'Marcus Felix Hugo Jonah Leon Nolan Pavel Quinn Silas Ulric Xavier Zane Cyrus Emil Gideon Ivo Kasper Milo Otto Rufus'.split(
    ' ',
  ),
};

export const PET_NAMES =
  'Biscuit Pepper Mochi Juniper Waffles Olive Pickles Ziggy Nutmeg Bramble Clementine Rolo Sprout Tofu Marble Basil'.split(
    ' ',
  );

export const BANDS =
  'the Velvet Lanterns|Harbour Lights|Copper Thieves|the Midnight Orchard|Paper Satellites|Salt & Cedar|the Lost Cartographers|Neon Heron'.split(
    '|',
  );

export const PLACES =
  'Lisbon|Kyoto|Reykjavik|Marrakech|Vancouver|Prague|Cape Town|Oaxaca|Hanoi|Tallinn|Buenos Aires|Crete|Edinburgh|Seoul|Tasmania|Patagonia'.split(
    '|',
  );

export const CITIES =
  'Denver|Portland|Leeds|Rotterdam|Adelaide|Montreal|Austin|Glasgow|Lyon|Wellington|Pittsburgh|Bristol|Halifax|Tucson|Cork|Boulder'.split(
    '|',
  );

export const PEAKS =
  'Mount Snowdon|Ben Nevis|Mount Rainier|Pikes Peak|Mont Ventoux|Table Mountain|Mount Taranaki|Half Dome'.split('|');

interface Value {
  /** The answer, and what {v} becomes in the lines. */
  v: string;
  /** Lines for this value only (for values whose telling cannot share a template). */
  tell?: string[];
  /** Open-domain questions this value answers by inference, with their answers. */
  infer?: [string, string][];
}

/** A lasting attribute of a person: told once, in one session, and asked about. */
export interface Attribute {
  key: string;
  values: Value[];
  tell: string[];
  ask: string[];
  /** The other speaker's replies to the telling: often on the topic, never the fact. */
  reply: string[];
  /** Open-domain questions any value answers by inference. */
  infer?: [string, string][];
}

export const ATTRIBUTES: Attribute[] = [
  {
    key: 'instrument',
    values: ['violin', 'cello', 'piano', 'guitar', 'drum kit', 'saxophone', 'ukulele', 'flute', 'trumpet', 'harp'].map(
      (v) => ({ v }),
    ),
    tell: [
      "I've been practising my {v} every evening, the neighbours must love me.",
      'Took my {v} in for repairs today, it feels weird not playing all weekend.',
      "My {v} teacher says I'm finally ready for the recital piece!",
      "Played the {v} at my cousin's party and nobody left the room, so I'm calling that a win.",
      "Can't believe it's been ten years since I first picked up {av}.",
      'Spent my whole lunch break on scales again. The {v} is a jealous mistress.',
    ],
    ask: [
      'What instrument does {P} play?',
      'Which musical instrument has {P} been practising?',
      'What does {P} play music on?',
    ],
    reply: [
      'I always wanted to learn an instrument, maybe one day.',
      'Music is such a good way to unwind, I envy you.',
      "You'll have to play something for me next time!",
      'That takes so much discipline, honestly.',
    ],
    infer: [['Would {P} likely enjoy a live classical music evening?', 'Likely yes; {they} plays the {v}.']],
  },
  {
    key: 'pet',
    values: ['dog', 'cat', 'rabbit', 'parrot', 'tortoise', 'hamster', 'ferret', 'guinea pig'].map((v) => ({ v })),
    tell: [
      '{N} knocked my coffee off the table again this morning. That {v} has no shame.',
      'Took {N} to the vet today, turns out my little {v} is just a bit chubby.',
      'Guess who chewed through the TV remote? {N}. Owning {av} is a full-time job.',
      '{N} curled up next to me all evening. Best {v} in the world, no contest.',
      'Bought {N} a fancy new bed and of course the silly {v} prefers the cardboard box it came in.',
    ],
    ask: ['What kind of animal does {P} have at home?', 'What species is the animal {P} looks after?'],
    reply: [
      'Animals make everything better, I swear.',
      "Haha, they really do run the house, don't they?",
      "I'd love a furry friend but my landlord says no.",
      'Send me photos, please!',
    ],
    infer: [['Would {P} need someone to look after an animal while on holiday?', 'Yes; {they} has {av} called {N}.']],
  },
  {
    key: 'job',
    values: [
      {
        v: 'nurse',
        tell: [
          'Twelve-hour shift on the ward again, three new admissions before lunch.',
          'One of my patients brought the whole night team cookies today, made my week.',
        ],
        infer: [['Would {P} know what to do if someone fainted?', 'Likely yes; {they} is a nurse.']],
      },
      {
        v: 'software developer',
        tell: [
          'Spent the whole day chasing a bug in our billing code, turned out to be one missing line.',
          'We finally shipped the new version of the app at work, the release went out at midnight.',
        ],
        infer: [['Could {P} help a friend set up a website?', 'Likely yes; {they} writes software for a living.']],
      },
      {
        v: 'primary school teacher',
        tell: [
          'My class of nine-year-olds put on their science fair today, I am so proud of them.',
          'Thirty essays on volcanoes to mark this weekend. The kids drew lava on every page.',
        ],
        infer: [
          ['Is {P} probably patient with young children?', 'Likely yes; {they} teaches a class of nine-year-olds.'],
        ],
      },
      {
        v: 'chef',
        tell: [
          'Service was insane tonight, we did two hundred covers and the kitchen ran out of butter.',
          "I'm testing a new dessert for the restaurant's autumn menu, a pear thing with cardamom.",
        ],
        infer: [['Would {P} be a good person to ask for a dinner recipe?', 'Yes; {they} cooks in a restaurant.']],
      },
      {
        v: 'architect',
        tell: [
          'The client finally signed off on my drawings for the library extension.',
          'Spent all day on site checking the foundations of the building I designed.',
        ],
      },
      {
        v: 'accountant',
        tell: [
          'Tax season has me buried in spreadsheets and receipts until April.',
          'Closed the quarterly books for three clients today and the numbers balanced first time.',
        ],
        infer: [['Could {P} help someone with their tax return?', 'Likely yes; {they} is an accountant.']],
      },
      {
        v: 'firefighter',
        tell: [
          'We got called out to a barn fire at three in the morning, I smell like smoke still.',
          'Drill day at the station, carrying hoses up six flights of stairs in full gear.',
        ],
      },
      {
        v: 'veterinarian',
        tell: [
          'Delivered a litter of puppies by caesarean at the clinic today.',
          "A farmer brought in a goat that had swallowed a glove. All in a day's work.",
        ],
      },
      {
        v: 'journalist',
        tell: [
          'My article on the city council finally ran on the front page!',
          'Interviewed the mayor this afternoon and my editor wants the piece by Friday.',
        ],
      },
      {
        v: 'electrician',
        tell: [
          'Rewired an entire old farmhouse this week, ancient fuse box and all.',
          'Crawled through three lofts today running new cable, I am covered in insulation.',
        ],
      },
      {
        v: 'pharmacist',
        tell: [
          'The counter was packed with flu prescriptions all day, I counted pills in my sleep.',
          'Had to call a doctor twice today about doses that did not look right on the scripts.',
        ],
      },
      {
        v: 'librarian',
        tell: [
          "We reorganised the whole children's section at the library today.",
          'Someone returned a book that was forty years overdue, with a lovely note inside.',
        ],
      },
    ],
    tell: [],
    ask: [
      'What does {P} do for a living?',
      "What is {P}'s profession?",
      'What line of work is {P} in?',
      'What is {P} employed as?',
    ],
    reply: [
      'Sounds like a long day, you deserve a rest.',
      'I could never do your job, honestly.',
      'Work has been hectic for me too.',
      'How do you keep your energy up?',
    ],
  },
  {
    key: 'hometown',
    values: CITIES.map((v) => ({ v })),
    tell: [
      'Nothing beats the summers of my childhood in {v}, we lived at the lake.',
      'Every time I visit {v} I remember riding my bike to school along the canal.',
      'I still miss the bakery on the corner back in {v}, my mum bought bread there every Saturday.',
      'My parents still live in the house in {v} where I was born.',
    ],
    ask: ['Where did {P} grow up?', "What is {P}'s hometown?", 'Which city is {P} originally from?'],
    reply: [
      'I love hearing about where people come from.',
      "Small towns have such a charm, don't they?",
      'Do you go back often?',
    ],
  },
  {
    key: 'food',
    values: [
      'ramen',
      'tacos',
      'lasagne',
      'pad thai',
      'sushi',
      'lamb curry',
      'paella',
      'dumplings',
      'pho',
      'shakshuka',
    ].map((v) => ({ v })),
    tell: [
      'I could eat {v} every single day and never get bored.',
      "Found a new place downtown that does proper {v}, I've been three times this week.",
      'Made {v} from scratch tonight. Took four hours but worth every minute.',
      'Whenever I have a rough day, {v} fixes it. Always has.',
    ],
    ask: ["What is {P}'s favourite dish?", 'What food does {P} love most?', 'What meal cheers {P} up?'],
    reply: [
      "Now I'm hungry, thanks a lot.",
      'Food really is the best comfort.',
      "You'll have to take me there sometime!",
    ],
  },
  {
    key: 'sport',
    values: [
      {
        v: 'running',
        tell: [
          'Did ten kilometres along the river before work, my legs are jelly.',
          'New trainers arrived so obviously I did a long loop round the park at dawn.',
        ],
      },
      {
        v: 'swimming',
        tell: [
          'Forty lengths at the pool this morning, a new personal best.',
          'The lido opened for the season so I was in the water at seven, freezing and happy.',
        ],
      },
      {
        v: 'rock climbing',
        tell: [
          'Finally topped that overhang route at the bouldering gym!',
          'My forearms are destroyed, we spent four hours on the crag on Sunday.',
        ],
      },
      {
        v: 'tennis',
        tell: [
          'Won my doubles match at the club on Sunday, my backhand is finally working.',
          'Restrung my racket and lost anyway, the other pair were ruthless.',
        ],
      },
      {
        v: 'cycling',
        tell: [
          'Rode sixty miles on the bike yesterday, mostly uphill.',
          'Fixed a flat on the roadside in the rain, the joys of long rides.',
        ],
      },
      {
        v: 'yoga',
        tell: [
          'My hamstrings after that ninety-minute flow class, wow.',
          'Held a headstand for a full minute at the studio tonight!',
        ],
      },
      {
        v: 'football',
        tell: [
          'Scored twice for my Sunday league team, we are top of the table.',
          'Pulled a muscle in the last five minutes of the match, typical.',
        ],
      },
      {
        v: 'rowing',
        tell: [
          'Up at five for crew practice on the lake, the mist was unreal.',
          'Our boat came second in the regatta, so close!',
        ],
      },
    ],
    tell: [],
    ask: ['What sport does {P} do?', 'How does {P} stay in shape?', 'What kind of exercise does {P} enjoy?'],
    reply: [
      'I really should get more exercise.',
      "You're so disciplined, I'm impressed.",
      'Keeping fit is so good for the head too.',
    ],
    infer: [['Is {P} likely to be physically active on weekends?', 'Yes; {they} does {v}.']],
  },
  {
    key: 'hobby',
    values: [
      {
        v: 'pottery',
        tell: [
          "Threw my first bowl on the wheel that didn't collapse!",
          'The kiln finally cooled and my glazed mugs came out speckled blue.',
        ],
      },
      {
        v: 'knitting',
        tell: [
          'Finished the scarf for my nephew, only took three months of evenings.',
          'Dropped a stitch twenty rows back and had to unravel the whole sleeve.',
        ],
      },
      {
        v: 'watercolour painting',
        tell: [
          'Sat by the canal with my brushes and paper all afternoon.',
          'I painted the view from my window at sunset, the colours bled just right.',
        ],
      },
      {
        v: 'woodworking',
        tell: [
          'Built a bookshelf in the garage out of reclaimed oak.',
          'Sanded the cutting board I made for my mum about a hundred times.',
        ],
      },
      {
        v: 'photography',
        tell: [
          'Got some gorgeous shots of the sunrise with my new lens.',
          'Developed my first roll of film in the bathroom, everything smells of chemicals.',
        ],
      },
      {
        v: 'gardening',
        tell: [
          'My tomatoes are finally turning red, first harvest of the summer.',
          'Spent the whole morning weeding the vegetable beds and planting garlic.',
        ],
      },
      {
        v: 'baking bread',
        tell: [
          'My sourdough starter is alive and thriving, made two loaves today.',
          "The crust on this morning's loaf actually crackled when it cooled!",
        ],
      },
      {
        v: 'birdwatching',
        tell: [
          'Spotted a kingfisher by the reservoir this morning!',
          'Sat in the hide for three hours with my binoculars and saw a heron catch a fish.',
        ],
      },
      {
        v: 'chess',
        tell: [
          'Won three games in a row at the club tonight, my opening prep paid off.',
          'Lost to a twelve-year-old in eleven moves. Humbling.',
        ],
      },
    ],
    tell: [],
    ask: [
      'What hobby does {P} have?',
      'What does {P} do in {their} spare time?',
      'What pastime does {P} enjoy?',
      'How does {P} relax after work?',
    ],
    reply: [
      'That sounds so relaxing.',
      'I need a hobby like that, I just scroll on my phone.',
      'Show me next time!',
      "You're so creative.",
    ],
  },
  {
    key: 'books',
    values: [
      {
        v: 'detective novels',
        tell: [
          "Halfway through another Agatha Christie and I've guessed the murderer wrong again.",
          'Nothing like a good whodunnit on a rainy Sunday.',
        ],
      },
      {
        v: 'science fiction',
        tell: [
          'Just finished a book about a generation ship to Alpha Centauri, my mind is blown.',
          "I'm rereading Dune for the fourth time, no regrets.",
        ],
      },
      {
        v: 'biographies',
        tell: [
          "Reading about Marie Curie's life right now, what a woman.",
          'I love reading about real people, currently on a life of Lincoln.',
        ],
      },
      {
        v: 'poetry',
        tell: [
          'I read a Mary Oliver poem every morning with my tea.',
          'Bought a tiny collection of haiku at the market, I keep it in my coat.',
        ],
      },
      {
        v: 'fantasy',
        tell: [
          'Stayed up till two finishing a book with dragons and a map at the front, obviously.',
          'Started a new epic series, nine books, each one a doorstop.',
        ],
      },
    ],
    tell: [],
    ask: [
      'What kind of books does {P} like to read?',
      'What genre of reading does {P} enjoy?',
      'What does {P} read for fun?',
    ],
    reply: ['Add it to my list!', "I haven't read a book in months, shame on me.", 'Reading before bed is the best.'],
  },
  {
    key: 'diet',
    values: [
      {
        v: 'vegetarian',
        tell: [
          "Haven't eaten meat in five years and honestly I don't miss it.",
          'The barbecue was all sausages so I lived on bread and salad again.',
        ],
        infer: [['Would {P} order the steak at a restaurant?', 'Unlikely; {they} does not eat meat.']],
      },
      {
        v: 'lactose intolerant',
        tell: [
          'Forgot to ask for oat milk in my latte and my stomach is paying for it.',
          'Cheese is my enemy, sadly, I can only look at the pizza.',
        ],
        infer: [['Would {P} enjoy a cheese-tasting evening?', 'Probably not; dairy upsets {their} stomach.']],
      },
      {
        v: 'allergic to peanuts',
        tell: [
          'Had to ask the waiter three times if the sauce had nuts in it.',
          'I carry my epipen everywhere since that satay incident.',
        ],
      },
      {
        v: 'gluten-free',
        tell: [
          'Found a bakery that does bread without wheat, finally!',
          'Coeliac life: the pasta at the party was off limits again.',
        ],
      },
    ],
    tell: [],
    ask: [
      'Does {P} have any dietary restrictions?',
      "What can't {P} eat?",
      'What does {P} need to avoid when eating out?',
    ],
    reply: ['That must make eating out tricky.', 'Good to know for when you come over!', "I'll remember that."],
  },
  {
    key: 'language',
    values: ['Spanish', 'Japanese', 'Italian', 'German', 'Korean', 'Portuguese', 'Arabic', 'Dutch'].map((v) => ({ v })),
    tell: [
      'My {v} tutor made me order dinner in {v} tonight and I panicked.',
      'Fifty-day streak on my {v} flashcards!',
      'Watched a whole film in {v} without subtitles, I understood maybe half.',
      "Conjugating {v} verbs on the bus every morning, people must think I'm mad.",
    ],
    ask: ['Which language is {P} learning?', 'What foreign tongue is {P} studying?'],
    reply: [
      "I only speak one language, I'm so jealous.",
      "Languages are hard, you're brave.",
      'Say something for me next time!',
    ],
  },
  {
    key: 'vehicle',
    values: [
      'old Volvo estate',
      'red Mini',
      'pickup truck',
      'electric Nissan',
      'camper van',
      'vintage Beetle',
      'motorbike',
    ].map((v) => ({ v })),
    tell: [
      "My {v} wouldn't start this morning, again.",
      'Washed the {v} for the first time in a year, it was a different colour underneath.',
      'Drove the {v} up to the coast and it made a noise I did not like.',
      'The mechanic says the {v} needs new brakes. There goes my holiday money.',
    ],
    ask: ['What does {P} drive?', 'What vehicle does {P} own?'],
    reply: [
      'Cars are money pits, truly.',
      "I take the bus everywhere, I couldn't deal with that.",
      'Fingers crossed it holds together!',
    ],
  },
  {
    key: 'music',
    values: ['jazz', 'country', 'heavy metal', 'K-pop', 'classical', 'reggae', 'folk'].map((v) => ({ v })),
    tell: [
      'Had {v} on full blast all day while I cleaned the flat.',
      'Made a new {v} playlist for the gym, it slaps.',
      'Nothing gets me through a long drive like {v}.',
    ],
    ask: ['What kind of music does {P} listen to?', 'What genre of songs does {P} like?'],
    reply: [
      'Send me the playlist!',
      'Good music makes chores bearable.',
      "I've been stuck on the same album for weeks.",
    ],
  },
];

/** Relations whose name is told once and used later (the first hop of multi-hop questions). */
export const RELATIONS: { rel: string; of: 'she' | 'he'; asWord: string }[] = [
  { rel: 'sister', of: 'she', asWord: 'sibling' },
  { rel: 'brother', of: 'he', asWord: 'sibling' },
  { rel: 'best friend', of: 'she', asWord: 'closest friend' },
  { rel: 'cousin', of: 'he', asWord: 'relative' },
];

export const RELATION_TELL = [
  'My {rel} {N} is coming to stay for a week, I need to clear out the spare room.',
  'Had a long phone call with my {rel} {N} last night, we had not talked in ages.',
  "{N} is my {rel}, and the funniest person I know, you'd love {them2}.",
  'Went for brunch with my {rel} {N} and we laughed until the waiter gave up on us.',
];

/** The second hop: something about the relative, told by name only. */
export const RELATION_MOVE = [
  '{N} just told me {they2} is moving to {v} for a new job!',
  "{N} finally found a flat in {v}, so I'll be visiting a lot.",
  'Helped {N} pack up the van for {v} today, my back is done.',
];

export const RELATION_ASK = ["What is the name of {P}'s {rel}?", "Who is {P}'s {asWord}?"];
export const RELATION_MOVE_ASK = ["Which city did {P}'s {rel} relocate to?", "Where does {P}'s {rel} live now?"];

/** A life event told in one session, with the time relative to that session's date. */
export interface LifeEvent {
  key: string;
  tell: string[];
  /** "When" questions about it, worded as a person would ask, not as it was told. */
  when: string[];
  /** Other questions about it with their answers ({N}: the name or place drawn for it). */
  what?: [string, string][];
  /** What {N} is drawn from. */
  pick?: 'band' | 'place' | 'peak' | 'friend';
  reply: string[];
}

export const EVENTS: LifeEvent[] = [
  {
    key: 'half-marathon',
    tell: [
      'I ran my first half marathon {when}! Twenty-one kilometres and I did not stop once.',
      'Crossed the finish line of the half marathon {when}, my toenails will never recover.',
    ],
    when: ['When did {P} complete a long-distance race?', 'When did {P} run {their} first big race?'],
    reply: ['You legend!', 'Take an ice bath, seriously.'],
  },
  {
    key: 'promotion',
    tell: [
      "My boss called me in {when} and told me I'm the new team lead!",
      'Got the email {when}: senior position, pay rise and all.',
    ],
    when: ['When did {P} get promoted?', 'When was {P} given a more senior role at work?'],
    reply: ['Congratulations, you earned it!', 'Drinks are on you then!'],
  },
  {
    key: 'move',
    tell: [
      'We finally got the keys to the new flat {when}, boxes everywhere.',
      'Spent {when} hauling furniture up three flights, we live here now!',
    ],
    when: ['When did {P} move house?', 'When did {P} relocate to a new home?'],
    reply: ['New place, new start!', 'Housewarming party soon?'],
  },
  {
    key: 'concert',
    pick: 'band',
    tell: [
      'Saw {N} live {when}, my ears are still ringing.',
      'Went to the {N} gig {when} and they played for three hours straight.',
    ],
    when: ['When did {P} go to a concert?'],
    what: [['Which band did {P} see perform?', '{N}']],
    reply: ['I am so jealous!', 'Were they as good live?'],
  },
  {
    key: 'wedding',
    pick: 'friend',
    tell: [
      'My friend {N} got married {when}, I cried through the whole ceremony.',
      "Danced until two at {N}'s wedding {when}, my feet hate me.",
    ],
    when: ['When did {P} attend a wedding?'],
    what: [['Whose marriage did {P} celebrate?', '{N}']],
    reply: ['Weddings are the best.', 'Aww, send pictures of the dress!'],
  },
  {
    key: 'injury',
    tell: [
      'I fell off my bike {when} and broke my wrist, so I am typing one-handed.',
      'Slipped on the ice {when}, and now there is a cast on my arm.',
    ],
    when: ['When did {P} hurt {their} arm?', 'When did {P} have the accident that injured {them}?'],
    reply: ['Oh no! Heal fast.', 'Ouch, that sounds awful.'],
  },
  {
    key: 'driving-test',
    tell: [
      'I passed my driving test {when}!! First try!',
      'The examiner shook my hand {when} and said I passed, I nearly cried.',
    ],
    when: ["When did {P} get {their} driver's licence?", 'When did {P} qualify to drive?'],
    reply: ['Road trip time!', 'Congrats, the roads are yours.'],
  },
  {
    key: 'dinner-party',
    tell: [
      'Hosted eight people for dinner {when}, three courses and no disasters.',
      'Cooked for the whole book club {when}, the dessert vanished in minutes.',
    ],
    when: ['When did {P} host a meal for friends?', 'When did {P} have guests over to eat?'],
    reply: ['Wish I had been there!', 'You are such a good host.'],
  },
  {
    key: 'volunteering',
    tell: [
      'Spent {when} sorting donations at the food bank.',
      'Helped serve lunch at the shelter {when}, it really puts things in perspective.',
    ],
    when: ['When did {P} volunteer?', 'When did {P} give {their} time to a charity?'],
    reply: ['That is so kind of you.', 'The world needs more people like you.'],
  },
  {
    key: 'camping',
    tell: [
      'We pitched the tent by the lake {when} and saw a million stars.',
      'Slept under canvas in the woods {when}, woke up to deer outside.',
    ],
    when: ['When did {P} go camping?', 'When did {P} spend a night outdoors?'],
    reply: ['Sounds magical.', 'I would last one night, tops.'],
  },
  {
    key: 'interview',
    tell: [
      'Had the interview for that museum job {when}, I think it went well?',
      'Sat in front of a panel of four people {when} answering questions about myself.',
    ],
    when: ['When did {P} interview for a new position?', 'When did {P} apply in person for another job?'],
    reply: ['Fingers crossed!', "They'd be lucky to have you."],
  },
  {
    key: 'baby',
    tell: [
      'My sister had her baby {when}, a little girl!',
      'Became an {aunt} for the first time {when}, he is tiny and perfect.',
    ],
    when: ["When was {P}'s niece or nephew born?", 'When did {P} get a new family member?'],
    reply: ['Congratulations to the whole family!', 'Babies are the best news.'],
  },
  {
    key: 'fundraiser',
    tell: [
      'We raised four hundred dollars at the school bake sale {when}.',
      'The charity quiz night {when} made enough to fix the community centre roof.',
    ],
    when: ['When did {P} help with a fundraiser?', 'When did {P} collect money for a good cause?'],
    reply: ['That is amazing work.', 'So proud of you all.'],
  },
  {
    key: 'museum',
    tell: [
      'Spent {when} wandering around the modern art museum.',
      'Saw the dinosaur exhibition {when}, the T. rex skeleton is enormous.',
    ],
    when: ['When did {P} visit a gallery or museum?', 'When did {P} go see an exhibition?'],
    reply: ['I love a quiet museum day.', 'Was it busy?'],
  },
  {
    key: 'dentist',
    tell: [
      'Got my wisdom teeth out {when}, I am living on soup.',
      'The dentist pulled a molar {when} and my face is still numb.',
    ],
    when: ['When did {P} have dental surgery?', 'When did {P} have a tooth removed?'],
    reply: ['Poor you, rest up.', 'Ice cream is medicine now.'],
  },
  {
    key: 'road-trip',
    tell: [
      'Drove up the coast {when}, stopped at every little fishing town.',
      'Six hours in the car {when} with nothing but snacks and podcasts.',
    ],
    when: ['When did {P} take a road trip?', 'When did {P} go on a long drive?'],
    reply: ['Road trips are the best.', 'Who picked the music?'],
  },
  {
    key: 'dance-class',
    tell: [
      'Went to my first salsa class {when}, two left feet.',
      'Took a tango lesson {when} and stepped on my partner about thirty times.',
    ],
    when: ['When did {P} start dancing lessons?', 'When did {P} try a dance course?'],
    reply: ['Haha, you will get there!', 'I would pay to see that.'],
  },
  {
    key: 'lost-phone',
    tell: [
      'Left my phone in a taxi {when}, spent the whole day cancelling everything.',
      'Dropped my phone in the canal {when}. Gone forever.',
    ],
    when: ['When did {P} lose {their} mobile?', 'When was {P} without a phone?'],
    reply: ['Nightmare!', 'That explains the silence.'],
  },
  {
    key: 'graduation',
    tell: [
      "I handed in my thesis {when}, I'm officially done with my master's!",
      'Walked across the stage in a silly hat {when}, my parents cried.',
    ],
    when: ['When did {P} finish {their} degree?', 'When did {P} graduate?'],
    reply: ['Dr. soon? Congratulations!', 'All that work paid off.'],
  },
  {
    key: 'festival',
    tell: [
      'Spent {when} at the street food festival in the park eating everything.',
      'The lantern festival {when} was the prettiest thing I have seen all year.',
    ],
    when: ['When did {P} go to a festival?', 'When was {P} at an outdoor celebration?'],
    reply: ['Sounds like so much fun!', 'Next year I am coming with you.'],
  },
  {
    key: 'storm',
    tell: [
      'The storm {when} knocked a tree onto our fence.',
      'Our basement flooded in the downpour {when}, everything is soaked.',
    ],
    when: ["When was {P}'s home damaged by bad weather?", "When did the weather wreck part of {P}'s house?"],
    reply: ['Oh no, is everyone okay?', 'That is awful, I am sorry.'],
  },
  {
    key: 'birthday',
    tell: [
      'Turned thirty {when} and my friends threw me a surprise party.',
      'Blew out the candles {when}, another year older and none the wiser.',
    ],
    when: ['When did {P} celebrate {their} birthday?', 'When did {P} get a year older?'],
    reply: ['Happy belated birthday!', 'You do not look a day over twenty-five.'],
  },
  {
    key: 'hike',
    pick: 'peak',
    tell: [
      'Climbed to the summit of {N} {when}, the view was worth every step.',
      'Made it to the top of {N} {when}, fog and all.',
    ],
    when: ['When did {P} hike up a mountain?'],
    what: [['Which peak did {P} climb?', '{N}']],
    reply: ['Your legs must be wrecked.', 'I would have turned back halfway.'],
  },
  {
    key: 'trip',
    pick: 'place',
    tell: [
      'Just got back from {N} {when}, the jet lag is brutal.',
      'Landed home from {N} {when}, already planning to go back.',
      'Got home from a week in {N} {when}, I ate so well.',
    ],
    when: ['When did {P} return from {their} holiday abroad?'],
    what: [['Where did {P} go on {their} holiday?', '{N}']],
    reply: ['Welcome back!', 'I need a holiday so badly.'],
  },
  {
    key: 'tattoo',
    tell: [
      'Got my first tattoo {when}, a tiny fern on my ankle.',
      'Sat in the chair for four hours {when} and now I have a sleeve started.',
    ],
    when: ['When did {P} get inked?', 'When did {P} get a tattoo?'],
    reply: ['Show me!', 'Did it hurt?'],
  },
  {
    key: 'new-job',
    tell: [
      'First day at the new company {when}, I got lost looking for the kitchen.',
      'Started the new job {when}, so many names to learn.',
    ],
    when: ['When did {P} start working somewhere else?', 'When did {P} begin a new position?'],
    reply: ['How exciting!', 'New job energy is the best.'],
  },
];

/** How a session-relative time is said, and how many days before the session it was. */
export const WHEN: { say: string; daysBefore: number | 'weekend' | 'week' | 'month' }[] = [
  { say: 'yesterday', daysBefore: 1 },
  { say: 'last night', daysBefore: 1 },
  { say: 'two days ago', daysBefore: 2 },
  { say: 'this morning', daysBefore: 0 },
  { say: 'last weekend', daysBefore: 'weekend' },
  { say: 'last week', daysBefore: 'week' },
  { say: 'last month', daysBefore: 'month' },
];

/** "Which came first" questions over two of a person's events. */
export const ORDER_ASK = ['Which happened first for {P}: {a} or {b}?', 'Did {P} {a2} before {b2}?'];

/** Short names for events in ordering questions (noun phrase, and verb phrase). */
export const EVENT_PHRASES: Record<string, [string, string]> = {
  'half-marathon': ['the long-distance race', 'run the long-distance race'],
  promotion: ['the promotion', 'get promoted'],
  move: ['moving house', 'move house'],
  concert: ['the concert', 'go to the concert'],
  wedding: ['the wedding', 'go to the wedding'],
  injury: ['the arm injury', 'hurt {their} arm'],
  'driving-test': ["getting {their} driver's licence", 'qualify to drive'],
  'dinner-party': ['hosting the dinner', 'host the dinner'],
  volunteering: ['the volunteering', 'volunteer'],
  camping: ['the camping trip', 'go camping'],
  interview: ['the job interview', 'interview for the job'],
  baby: ['the baby being born', 'get a new family member'],
  fundraiser: ['the fundraiser', 'help with the fundraiser'],
  museum: ['the museum visit', 'visit the museum'],
  dentist: ['the dental surgery', 'have the tooth removed'],
  'road-trip': ['the road trip', 'take the road trip'],
  'dance-class': ['the dance class', 'try dancing'],
  'lost-phone': ['losing {their} phone', 'lose {their} phone'],
  graduation: ['graduating', 'graduate'],
  festival: ['the festival', 'go to the festival'],
  storm: ['the storm damage', 'have the storm damage'],
  birthday: ['the birthday', 'celebrate {their} birthday'],
  hike: ['the mountain hike', 'climb the mountain'],
  trip: ['the holiday abroad', 'come back from abroad'],
  tattoo: ['the tattoo', 'get the tattoo'],
  'new-job': ['starting the new job', 'start the new job'],
};

/** Small talk: no facts, the bulk of every session. Joined in ones and twos. */
export const GREETINGS = [
  'Hey {O}! How have you been?',
  'Hi {O}, long time no talk!',
  'Morning! Got a minute?',
  'Hey, it has been a while!',
  'Hiya! How is your week going?',
  '{O}! I was just thinking about you.',
  'Hello hello! What is new?',
  'Hey! Sorry I went quiet for a bit.',
];

export const GREETING_REPLIES = [
  'Hey! Good to hear from you.',
  'Hi! Busy, but good. You?',
  'Oh hey! Not bad at all, just tired.',
  'Hello! Funny, I was about to message you.',
  'All good here, mostly. How about you?',
  'Hey you! Been a crazy few weeks.',
];

export const FAREWELLS = [
  'Anyway, I should get going. Talk soon!',
  'Okay, dinner is ready, catch you later!',
  'Gotta run, take care!',
  'Lovely chatting, speak next week?',
  'Right, bedtime for me. Night!',
  'Let us catch up again soon.',
  'Bye for now!',
];

export const SMALL_TALK = [
  'The weather has been so grey lately, I miss the sun.',
  'I slept terribly last night, no idea why.',
  'Did you watch anything good recently?',
  'I have been binging a baking show, it is oddly calming.',
  'Work is work, you know how it is.',
  'Honestly, I just need a long weekend.',
  'My inbox is a disaster right now.',
  'I keep meaning to call my mum back.',
  'Traffic this morning was unbelievable.',
  'Have you tried that new coffee place?',
  'I am trying to drink more water, it is going badly.',
  'My plants are thriving and I have no idea why.',
  'It has been raining for four days straight.',
  'Let me know if you want to grab lunch sometime.',
  'I cleaned the whole flat and it already looks messy again.',
  'Everything feels so busy at the moment.',
  'I finally did my laundry, a small victory.',
  'Does time go faster as you get older, or is it just me?',
  'I need a holiday from my holiday.',
  'I started that series you recommended, three episodes in.',
  'The neighbours are renovating and the drilling never stops.',
  'I ate way too much cake today.',
  'How is everyone at home?',
  'What are you up to this weekend?',
  'That reminds me, I owe you a coffee.',
  'I have been trying to get to bed earlier.',
  'My phone keeps dying, I need a new battery.',
  'The days are getting so short now.',
  'Spring is finally here, the trees are blooming.',
  'It is so hot, I cannot think.',
  'I have a pile of books I keep not reading.',
  'Do you ever just stare at the fridge hoping food appears?',
  'Our kettle broke, it has been a dark week.',
  'I tried meditating, lasted about two minutes.',
  'Do you have any plans for the holidays?',
  'I have so many tabs open in my brain right now.',
  'The supermarket was out of everything today.',
  'I need to stop buying candles, I have about forty.',
  'Someone at work brought in doughnuts, so today was a good day.',
  'I am so behind on messages, sorry.',
  'Bit of a slow week honestly.',
  'I saw a dog that looked exactly like a mop today.',
  'The bus was late again, obviously.',
  'Can you believe it is already the end of the month?',
  'I keep forgetting what day it is.',
  'We should plan something fun soon.',
  'I made a to-do list and then lost it.',
];

export const REACTIONS = [
  'Haha, that is so true.',
  'Oh wow, really?',
  'I know exactly what you mean.',
  'Same here, honestly.',
  'That sounds lovely.',
  'Ugh, I feel that.',
  'No way!',
  'Ha, classic.',
  'Totally agree.',
  'That is good to hear.',
  'Oh, that is a shame.',
  'Fair enough!',
  'I hear you.',
  'Love that.',
  'Tell me about it.',
  'Oh no, poor you.',
  'That made me laugh.',
  'Sounds like a plan.',
  'You always say that, haha.',
  'Good for you!',
];

export const FOLLOW_UPS = [
  'Yeah, it has been quite a time.',
  'Thanks, I appreciate that.',
  'Honestly I am still processing it.',
  'Haha, I will keep you posted.',
  'It was a big deal for me.',
  'I know, right?',
  'Next time you should come along.',
  'Anyway, enough about me. How are you?',
];

/**
 * Tellings that share words with the questions, as many real turns do ("the instrument I play"):
 * without them keyword search would find almost nothing, which is not how chats read either.
 */
export const ATTRIBUTE_ECHOES: Record<string, [string, string][]> = {
  instrument: [
    ['Of every instrument I tried as a kid, the {v} is the one I still play.', 'What instrument does {P} still play?'],
    [
      'Music keeps me sane: I play the {v} in a little community orchestra now.',
      'What does {P} play in the community orchestra?',
    ],
    [
      "I've been practising my {v} every evening, the neighbours must love me.",
      'What has {P} been practising every evening?',
    ],
  ],
  pet: [
    ['I was never an animal person until {N} the {v} came home with me.', 'What animal did {P} bring home?'],
    [
      'Looking after an animal is a lot of work, but {N} my {v} is worth it.',
      'What kind of animal is {P} looking after?',
    ],
    [
      'Took {N} to the vet today, turns out my little {v} is just a bit chubby.',
      'What kind of animal did {P} take to the vet?',
    ],
  ],
  job: [
    ['I love my job as {av}, even on the hard days.', "What is {P}'s job?"],
    ['Eight years working as {av} now, still learning every week.', 'What has {P} been working as for eight years?'],
    [
      'People think being {av} is glamorous. It is mostly paperwork and tired feet.',
      'What work does {P} say is mostly paperwork?',
    ],
  ],
  hometown: [
    ['I grew up in {v}, so this cold is nothing to me.', 'Where did {P} grow up?'],
    [
      'Going home to {v} next month, the city has changed so much since I was a kid.',
      'Which city did {P} live in as a kid?',
    ],
    ['My parents still live in the house in {v} where I was born.', 'Where was {P} born?'],
  ],
  food: [
    ['My favourite dish in the world is {v}, no contest.', "What is {P}'s favourite dish?"],
    ['If I could only eat one food forever it would be {v}, I love it.', 'What food could {P} eat forever?'],
    ['Whenever I have a rough day, {v} fixes it. Always has.', 'What does {P} eat after a rough day?'],
  ],
  sport: [
    ['{v} is my sport, it keeps me in shape and keeps my head clear.', 'What sport keeps {P} in shape?'],
    [
      'I do {v} three times a week now, best exercise I have ever tried.',
      'What exercise does {P} do three times a week?',
    ],
  ],
  hobby: [
    ['My new hobby is {v} and I am obsessed.', "What is {P}'s new hobby?"],
    [
      'Spent my spare time this week on {v}, it helps me relax after work.',
      'What does {P} do in {their} spare time to relax?',
    ],
  ],
  books: [
    ['I read {v} for fun, the rest of the time it is work emails.', 'What does {P} read for fun?'],
    ['Give me {v} and a blanket and I will read all weekend.', 'What kind of books does {P} read all weekend?'],
  ],
  diet: [
    [
      'Eating out is hard when you are {v}, I always check the menu first.',
      'Why does {P} check the menu first when eating out?',
    ],
    ['Being {v} means I have to avoid half the menu everywhere.', 'Why does {P} have to avoid half the menu?'],
  ],
  language: [
    ['Learning a new language is humbling, my {v} is still terrible.', 'Which new language is {P} learning?'],
    ['I am studying {v} twice a week now, the grammar is a nightmare.', 'Which language is {P} studying twice a week?'],
    ['Fifty-day streak on my {v} flashcards!', "What language are {P}'s flashcards for?"],
  ],
  vehicle: [
    ['I drive {av} and honestly it is held together by hope.', 'What does {P} drive?'],
    ["My {v} wouldn't start this morning, again.", "What wouldn't start for {P} this morning?"],
  ],
  music: [
    ['I listen to {v} music all day at work, it keeps me going.', 'What music does {P} listen to at work?'],
    ['Made a new {v} playlist for the gym, it slaps.', 'What kind of playlist did {P} make for the gym?'],
  ],
};

/** "When" questions that reuse the telling's words, as people ask when they remember the telling. */
export const EVENT_ECHOES: Record<string, string[]> = {
  'half-marathon': ['When did {P} run {their} first half marathon?'],
  promotion: ['When did {P} become the new team lead?'],
  move: ['When did {P} get the keys to {their} new flat?'],
  concert: ['When did {P} see a band live at a gig?'],
  wedding: ['When did {P} go to a wedding ceremony?'],
  injury: ['When did {P} break {their} wrist or arm?'],
  'driving-test': ['When did {P} pass {their} driving test?'],
  'dinner-party': ['When did {P} cook dinner for people?'],
  volunteering: ['When did {P} help at the food bank or shelter?'],
  camping: ['When did {P} sleep in a tent by the lake or in the woods?'],
  interview: ['When did {P} have a job interview?'],
  baby: ['When did {P} become an aunt or uncle to a baby?'],
  fundraiser: ['When did {P} raise money for charity?'],
  museum: ['When did {P} go to the museum exhibition?'],
  dentist: ['When did {P} have {their} teeth out at the dentist?'],
  'road-trip': ['When did {P} drive up the coast in the car?'],
  'dance-class': ['When did {P} go to {their} first salsa or tango class?'],
  'lost-phone': ['When did {P} lose {their} phone?'],
  graduation: ["When did {P} finish {their} master's thesis?"],
  festival: ['When did {P} go to the festival in the park?'],
  storm: ["When did the storm damage {P}'s house?"],
  birthday: ["When was {P}'s birthday party?"],
  hike: ['When did {P} climb to the summit?'],
  trip: ['When did {P} get back home from {their} trip?'],
  tattoo: ['When did {P} get {their} first tattoo?'],
  'new-job': ['When did {P} start {their} new job?'],
};
