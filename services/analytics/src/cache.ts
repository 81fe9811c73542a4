/**
 * Answers of the window endpoints cached per read-model version: the key holds the project key, its version
 * (bumped by every fold, new day and rebuild, and read from Postgres on every call) and the request, so a hit
 * is always the answer the read model would give now. Least recently used entries go first; size 0 disables it.
 */
export class ReadCache {
  readonly #entries = new Map<string, unknown>();
  hits = 0;
  misses = 0;

  constructor(private readonly max: number) {}

  async get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.max <= 0) return compute();
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit as T;
    }
    this.misses++;
    const value = await compute();
    this.#entries.set(key, value);
    while (this.#entries.size > this.max) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }
}

/** The key of an answer: the project's key, its version and day, then what the request asked. */
export const cacheKey = (state: { key: number; version: number; asOf: number }, ...parts: unknown[]): string =>
  [state.key, state.version, state.asOf, ...parts].join(':');
