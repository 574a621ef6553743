/**
 * The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it, so that a word stemmed here
 * equals the term FTS5 indexed for it ("pricing", "priced" and "prices" all give "price"). Written
 * from the algorithm (M. F. Porter, 1980) with FTS5's own choices: tokens under 3 or over 64 bytes
 * pass unstemmed, the rules work on the UTF-8 bytes of a folded token (any byte outside a-z is a
 * consonant), each step tries only the rules for the token's second-last letter and stops at the
 * first suffix that fits, whether or not its condition holds.
 */

type Condition = (stem: string) => boolean;

interface Rule {
  suffix: string;
  to: string;
  when?: Condition;
}

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/** Whether each letter of `s` is a consonant: y is a vowel after a consonant, any other non-vowel a consonant. */
function consonants(s: string): boolean[] {
  const out: boolean[] = [];
  for (let i = 0; i < s.length; i++) out.push(!isVowel(s[i]!, out[i - 1] ?? false));
  return out;
}

/** The measure m of `s` ([C](VC)^m[V]): how often a consonant follows a vowel. */
function measure(s: string): number {
  const c = consonants(s);
  let m = 0;
  for (let i = 1; i < c.length; i++) if (c[i] && !c[i - 1]) m++;
  return m;
}

const mGt0: Condition = (s) => measure(s) > 0;
const mGt1: Condition = (s) => measure(s) > 1;
/** Holds a vowel (y counts as one anywhere but first). */
const hasVowel: Condition = (s) => [...s].some((c, i) => isVowel(c, i > 0));

/** Ends consonant–vowel–consonant, the last not w, x or y (*o). */
function endsCvc(s: string): boolean {
  if (s.length < 3 || /[wxy]$/.test(s)) return false;
  const c = consonants(s).slice(-3);
  return c[0]! && !c[1] && c[2]!;
}

/** Rules of each step by the second-last letter of the word, tried in order. */
function byLetter(rules: Rule[]): Map<string, Rule[]> {
  const map = new Map<string, Rule[]>();
  for (const rule of rules) {
    const key = rule.suffix[rule.suffix.length - 2]!;
    map.set(key, [...(map.get(key) ?? []), rule]);
  }
  return map;
}

const r = (suffix: string, to: string, when?: Condition): Rule => ({ suffix, to, when });

const STEP2 = byLetter([
  r('ational', 'ate', mGt0),
  r('tional', 'tion', mGt0),
  r('enci', 'ence', mGt0),
  r('anci', 'ance', mGt0),
  r('izer', 'ize', mGt0),
  r('logi', 'log', mGt0),
  r('bli', 'ble', mGt0),
  r('alli', 'al', mGt0),
  r('entli', 'ent', mGt0),
  r('eli', 'e', mGt0),
  r('ousli', 'ous', mGt0),
  r('ization', 'ize', mGt0),
  r('ation', 'ate', mGt0),
  r('ator', 'ate', mGt0),
  r('alism', 'al', mGt0),
  r('iveness', 'ive', mGt0),
  r('fulness', 'ful', mGt0),
  r('ousness', 'ous', mGt0),
  r('aliti', 'al', mGt0),
  r('iviti', 'ive', mGt0),
  r('biliti', 'ble', mGt0),
]);

const STEP3 = byLetter([
  r('ical', 'ic', mGt0),
  r('ness', '', mGt0),
  r('icate', 'ic', mGt0),
  r('iciti', 'ic', mGt0),
  r('ful', '', mGt0),
  r('ative', '', mGt0),
  r('alize', 'al', mGt0),
]);

const ionStem: Condition = (s) => /[st]$/.test(s) && mGt1(s);
const STEP4 = byLetter([
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map((s) =>
    r(s, '', mGt1),
  ),
  r('ion', '', ionStem),
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((s) => r(s, '', mGt1)),
]);

/** Step 1b: -eed, -ed, -ing; true when -ed or -ing went (so the stem is tidied). */
const STEP1B = byLetter([r('eed', 'ee', mGt0), r('ed', '', hasVowel), r('ing', '', hasVowel)]);

/**
 * Applies the first rule whose suffix the word ends with (leaving a stem of at least one letter);
 * the word unchanged when its condition fails. `applied` tells whether a rule changed it.
 */
function step(word: string, rules: Map<string, Rule[]>): { word: string; applied?: Rule } {
  for (const rule of rules.get(word[word.length - 2] ?? '') ?? []) {
    if (word.length > rule.suffix.length && word.endsWith(rule.suffix)) {
      const stem = word.slice(0, -rule.suffix.length);
      if (rule.when && !rule.when(stem)) return { word };
      return { word: stem + rule.to, applied: rule };
    }
  }
  return { word };
}

function step1a(w: string): string {
  if (!w.endsWith('s')) return w;
  if (w.endsWith('es')) {
    const n = w.length;
    if ((n > 4 && w.endsWith('sses')) || (n > 3 && w[n - 3] === 'i')) return w.slice(0, -2);
    return w.slice(0, -1);
  }
  return w.endsWith('ss') ? w : w.slice(0, -1);
}

function step1b(w: string): string {
  const { word, applied } = step(w, STEP1B);
  if (!applied || applied.suffix === 'eed') return word;
  if (/(at|bl|iz)$/.test(word) && word.length > 2) return `${word}e`;
  const last = word[word.length - 1]!;
  if (!isVowel(last, false) && !'lsz'.includes(last) && last === word[word.length - 2])
    return word.slice(0, -1);
  if (measure(word) === 1 && endsCvc(word)) return `${word}e`;
  return word;
}

function step5(w: string): string {
  let word = w;
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) word = stem;
  }
  if (word.endsWith('ll') && mGt1(word.slice(0, -1))) word = word.slice(0, -1);
  return word;
}

/** Stems one byte string (one character per UTF-8 byte). */
function stemBytes(token: string): string {
  if (token.length < 3 || token.length > 64) return token;
  let w = step1b(step1a(token));
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  w = step(w, STEP2).word;
  w = step(w, STEP3).word;
  w = step(w, STEP4).word;
  return step5(w);
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The stem of a folded token (lower case, diacritics removed), as FTS5's porter tokenizer indexes it.
 * A token outside ASCII gives its stem as a string of its UTF-8 bytes: fit for comparing stems only.
 */
export function porterStem(token: string): string {
  if (!NON_ASCII.test(token)) return stemBytes(token);
  const bytes = Buffer.from(token, 'utf8').toString('latin1');
  return stemBytes(bytes);
}
