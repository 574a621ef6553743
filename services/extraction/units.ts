import { CURRENCY_CODES } from '../../core/money.ts';

/** What notes around a table say of its figures: the units they are in, and the currency. */
export interface Notes {
  multiplier: number;
  currency: string | undefined;
}

const CODES = new Set<string>(CURRENCY_CODES);

const UNITS: [RegExp, number][] = [
  [/\bcrores?\b|₹\s?cr\b|\b(inr|rs\.?)\s?cr\b/i, 10_000_000],
  [/\blakhs?\b|\blacs?\b|₹\s?l\b/i, 100_000],
  [
    /\b(in )?millions?\b|\b(millioner|miljoner|millionen|miljoonaa)\b|\bm(nok|sek|dkk|chf|usd|eur|gbp)\b|[$€£]\s?(m|mm|mn)\b|\b(meur|musd|mgbp)\b|\bm[$€£]|x\s?([a-z]{3}|[$€£])?\s?1[.,]000[.,]000\b/i,
    1_000_000,
  ],
  [
    /\b(in )?thousands?\b|\b(tkr|tsek|tnok|tdkk|tusen|tusind|tausend|tuhatta)\b|[$€£]\s?'?0{3}s?\b|'0{3}s?\b|\b0{3}s\b|\(0{3}\)|[$€£]k\b|\(\s?[$€£]?k\)|\b(teur|keur|kusd|kgbp|tusd)\b|\bk[$€£]|\bt€|x\s?([a-z]{3}|[$€£])?\s?1[.,]000\b/i,
    1000,
  ],
];
/** A currency code with a units suffix: `USD k`, `EUR '000`, `GBP m`. */
const CODE_UNITS = /\b([a-z]{3})\s?(k|'?000s?|m|mm|mn|mio)\b/gi;

function codeUnits(text: string): number {
  for (const [, code, unit] of text.matchAll(CODE_UNITS))
    if (CODES.has(code!.toUpperCase())) return /^(k|'?000s?)$/i.test(unit!) ? 1000 : 1_000_000;
  return 1;
}

const SYMBOLS: [RegExp, string][] = [
  [/₹/, 'INR'],
  [/\$/, 'USD'],
  [/€/, 'EUR'],
  [/£/, 'GBP'],
];

/** A currency a text names: an ISO code as a word (`USD`, `TEUR`, `AED thousands`), else a symbol. */
function currencyOf(text: string): string | undefined {
  for (const word of text.toUpperCase().match(/\b[TKM]?[A-Z]{3}\b/g) ?? []) {
    const code = word.length === 4 ? word.slice(1) : word;
    if (CODES.has(code) && !['ALL', 'TOP', 'AND', 'FOR', 'CUP', 'MOP', 'PEN', 'SOS', 'TRY'].includes(code))
      return code;
  }
  for (const [pattern, code] of SYMBOLS) if (pattern.test(text)) return code;
  return undefined;
}

/** The units multiplier and currency that notes in the text cells given name, the first of each found. */
export function notesOf(texts: readonly string[]): Notes {
  let multiplier = 1;
  let currency: string | undefined;
  for (const text of texts) {
    if (multiplier === 1) multiplier = UNITS.find(([pattern]) => pattern.test(text))?.[1] ?? codeUnits(text);
    currency ??= currencyOf(text);
  }
  return { multiplier, currency };
}
