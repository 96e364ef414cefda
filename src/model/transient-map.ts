/**
 * A Map for a long-lived registry whose entries come and go with requests (the runs a replica
 * holds, a task's bus listeners, the open streams). A Map cannot reuse a deleted entry's slot, so
 * under churn it keeps rebuilding its table, and V8 links each table it gives up to the next. Once
 * the Map is old, those dead tables are roots of every young collection: every value they held,
 * and all it reaches (a request, a run), is kept and promoted, until a full collection. This one
 * starts over in a new Map after as many deletions as it holds entries (at least 64), which cuts
 * that chain at the cost of one copy per entry deleted (bench/HISTORY.md, _What kept
 * every request's objects_).
 */
export class TransientMap<K, V> {
  #map = new Map<K, V>()
  #deleted = 0

  get size(): number {
    return this.#map.size
  }

  get(key: K): V | undefined {
    return this.#map.get(key)
  }

  has(key: K): boolean {
    return this.#map.has(key)
  }

  set(key: K, value: V): void {
    this.#map.set(key, value)
  }

  delete(key: K): boolean {
    if (!this.#map.delete(key)) return false
    this.#deleted += 1
    if (this.#deleted >= Math.max(RENEW_AFTER, this.#map.size)) {
      this.#map = new Map(this.#map)
      this.#deleted = 0
    }
    return true
  }

  clear(): void {
    this.#map = new Map()
    this.#deleted = 0
  }

  /** The keys at the time of the call, in insertion order: the map may change while they are used. */
  keys(): K[] {
    return [...this.#map.keys()]
  }

  /** The values at the time of the call, in insertion order. */
  values(): V[] {
    return [...this.#map.values()]
  }

  /** The entries at the time of the call, in insertion order. */
  entries(): [K, V][] {
    return [...this.#map.entries()]
  }
}

/** The fewest deletions between two renewals: a small map is copied at most once per 64 of them. */
const RENEW_AFTER = 64
