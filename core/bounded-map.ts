/** A map of at most `limit` entries: adding one past it drops the entry used least recently. */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    // Most recently used last (a Map iterates in insertion order), so the first is the one to drop.
    // Order matters only once the map may fill up: below half its limit a read leaves it as it is,
    // which keeps the hottest reads (a statement, a principal) to one lookup.
    if (value !== undefined && this.#entries.size > this.limit / 2) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
