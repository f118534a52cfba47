/** Plain English for the embedder benchmarks: sentences, 1 KiB documents made of them, short queries. */
import { seeded } from './corpus';

// Plain conversational English, so that a KiB is as many tokens as in real notes (about 230).
export const SENTENCES = [
  'Melanie said the kids loved the pottery class they took last weekend.',
  'Caroline went to the LGBTQ support group on Tuesday and found it very moving.',
  'We should book the train tickets to Lisbon before the prices go up in June.',
  'My sister is allergic to peanuts, so the birthday cake has to be nut free.',
  'The dentist moved my appointment to Thursday at half past three.',
  'He finally finished the novel about the lighthouse keeper and loved the ending.',
  'Remember to water the tomatoes every evening while the neighbours are away.',
  'The new project deadline is the end of the month, and the budget is tight.',
  'She started running again after the knee surgery and is training for a half marathon.',
  'Our landlord promised to fix the kitchen window before the winter storms arrive.',
  'I keep forgetting the password for the library account; it is written in the blue notebook.',
  'Dad wants to visit the museum of modern art when he comes over in September.',
  'The camping trip in the mountains was cold, but the stars at night were unforgettable.',
  'Jon lost his job at the bank and is thinking about opening a dance studio.',
  'For breakfast she usually has oatmeal with berries and a strong black coffee.',
  'The car needs new tyres and an oil change before the long drive to the coast.',
  'We adopted a grey cat from the shelter and named her Pepper.',
  'Grandma shared her recipe for lentil soup, with extra garlic and a bay leaf.',
  'The concert was postponed because the violinist caught the flu.',
  'Next year I want to learn Spanish and spend a month in Valencia.',
];

export function documents(n: number, bytes: number): string[] {
  const random = seeded(7);
  return Array.from({ length: n }, () => {
    let text = '';
    while (text.length < bytes) text += `${SENTENCES[Math.floor(random() * SENTENCES.length)]} `;
    return text.slice(0, bytes);
  });
}

export const QUERIES = [
  'when did Caroline go to the support group?',
  'what is my sister allergic to',
  'Jon job bank',
  'where did Melanie take the kids',
  'dentist appointment day',
];
