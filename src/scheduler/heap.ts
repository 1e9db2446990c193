// A binary heap keyed by name, so an item can be found, updated or removed in O(log n): the scheduling
// queue's active and back-off queues.

export interface KeyedHeap<T> {
  readonly size: number;
  has(key: string): boolean;
  get(key: string): T | undefined;
  /** adds, or replaces the item with the same key */
  set(item: T): void;
  delete(key: string): T | undefined;
  peek(): T | undefined;
  pop(): T | undefined;
  values(): IterableIterator<T>;
}

export function keyedHeap<T>(keyOf: (t: T) => string, less: (a: T, b: T) => boolean): KeyedHeap<T> {
  const items: T[] = [];
  const index = new Map<string, number>();

  const swap = (i: number, j: number) => {
    const a = items[i]!;
    const b = items[j]!;
    items[i] = b;
    items[j] = a;
    index.set(keyOf(b), i);
    index.set(keyOf(a), j);
  };
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(items[i]!, items[parent]!)) return;
      swap(i, parent);
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < items.length && less(items[l]!, items[smallest]!)) smallest = l;
      if (r < items.length && less(items[r]!, items[smallest]!)) smallest = r;
      if (smallest === i) return;
      swap(i, smallest);
      i = smallest;
    }
  };
  const removeAt = (i: number): T => {
    const item = items[i]!;
    const last = items.length - 1;
    if (i !== last) swap(i, last);
    items.pop();
    index.delete(keyOf(item));
    if (i < items.length) {
      down(i);
      up(i);
    }
    return item;
  };

  return {
    get size() { return items.length; },
    has: (key) => index.has(key),
    get: (key) => (index.has(key) ? items[index.get(key)!] : undefined),
    set(item) {
      const key = keyOf(item);
      const at = index.get(key);
      if (at === undefined) {
        items.push(item);
        index.set(key, items.length - 1);
        up(items.length - 1);
      } else {
        items[at] = item;
        down(at);
        up(at);
      }
    },
    delete: (key) => (index.has(key) ? removeAt(index.get(key)!) : undefined),
    peek: () => items[0],
    pop: () => (items.length ? removeAt(0) : undefined),
    values: () => items.values(),
  };
}
