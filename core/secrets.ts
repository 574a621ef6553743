import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  scrypt as scryptCb,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;

const N = 16384;
const r = 8;
const p = 1;
const KEYLEN = 32;

/** A slow hash for passwords and client secrets: `scrypt$N$r$p$salt$hash`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, KEYLEN, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, rr, pp, salt, expected] = parts as [string, string, string, string, string, string];
  const want = Buffer.from(expected, 'base64url');
  const got = await scrypt(secret, Buffer.from(salt, 'base64url'), want.length, {
    N: Number(n),
    r: Number(rr),
    p: Number(pp),
    maxmem: 64 * 1024 * 1024,
  });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A new opaque bearer token: a short prefix naming its kind, then 256 random bits. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Tokens are stored and looked up only by their SHA-256. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function sealingKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'portfolio sealed with a token', 32));
}

/**
 * Encrypts text (AES-256-GCM) under a key derived from a secret that is stored only as its SHA-256,
 * so what is sealed can be read again only by whoever presents that secret.
 */
export function sealWith(secret: string, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The text sealed by sealWith with the same secret, or undefined when it does not open. */
export function openWith(secret: string, sealed: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

const weak = new Set(['password', 'password1', '12345678', '123456789', 'qwertyui', 'letmein1', 'changeme']);

/** Why a password is too weak, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10) return 'password must be at least 10 characters';
  if (weak.has(password.toLowerCase())) return 'password is too common';
  if (new Set(password).size < 4) return 'password must use at least 4 different characters';
  return null;
}
