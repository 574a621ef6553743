import { randomBytes } from 'node:crypto';

/** Letters and digits only, so an id never begins with '-' and never reads as a command-line flag. */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 16;

// Random bytes are drawn 4 KiB at a time: a bulk write takes thousands of ids in one request.
let pool = Buffer.alloc(0);
let next = 0;

function randomByte(): number {
  if (next >= pool.length) {
    pool = randomBytes(4096);
    next = 0;
  }
  return pool[next++]!;
}

/** A new opaque identifier: 16 alphanumeric characters (about 95 random bits). */
export function newId(): string {
  let id = '';
  while (id.length < LENGTH) {
    const byte = randomByte();
    // Bytes from 248 up are dropped so that every character is equally likely.
    if (byte < 248) id += ALPHABET[byte % 62];
  }
  return id;
}

export function nowIso(date: Date): string {
  return date.toISOString();
}

/**
 * An id of the form the seeded cap-table rows have: a short prefix naming the kind, `_`, then 12
 * random alphanumeric characters (`fin_3kQ9…`).
 */
export function prefixedId(prefix: string): string {
  return `${prefix}_${newId().slice(0, 12)}`;
}
