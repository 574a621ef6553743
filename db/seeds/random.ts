/**
 * Deterministic randomness for seed data: a small seeded PRNG (mulberry32) and an id generator.
 * Nothing here reads the clock or Math.random, so the same seed gives the same data every time.
 */

/** FNV-1a, 32 bits: turns a label into a seed. */
export function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private state: number;

  /** `label` names the stream; `fork` derives independent streams from it. */
  constructor(readonly label: string) {
    this.state = hashLabel(label);
  }

  /** An independent stream, unaffected by how much of this one has been used. */
  fork(label: string): Rng {
    return new Rng(`${this.label}/${label}`);
  }

  /** mulberry32: a uniform float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** A float in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `k` distinct items, in a random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.min(k, items.length));
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** x moved by up to ±pct of itself. */
  jitter(x: number, pct: number): number {
    return x * (1 + this.between(-pct, pct));
  }

  /** A normally distributed float (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Opaque ids: a short prefix naming the kind, then 12 base62 characters from a seeded stream. */
export class IdGen {
  private readonly rng: Rng;
  private readonly used = new Set<string>();

  constructor(label: string) {
    this.rng = new Rng(label);
  }

  next(prefix: string): string {
    for (;;) {
      let id = `${prefix}_`;
      for (let i = 0; i < 12; i++) id += BASE62[Math.floor(this.rng.next() * 62)];
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}
