// Long work on the event loop cut into slices, so that other requests (and health probes) are served between them.

/** the longest stretch of work between two turns of the event loop, where work can be cut */
export const sliceMs = 10;

/** lets the event loop serve what waits (I/O, timers) before going on */
export const yieldToLoop = () => new Promise<void>(resolve => setImmediate(resolve));

/** a clock of work since the loop was last given back: `due()` is true once a slice is used up, and restarts it */
export function sliceClock(): { due(): boolean } {
  let since = performance.now();
  return {
    due() {
      const now = performance.now();
      if (now - since < sliceMs) return false;
      since = now;
      return true;
    },
  };
}

/** fn over each item, giving the event loop back after every slice of work */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = new Array(items.length);
  const clock = sliceClock();
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i], i);
    if ((i & 15) === 15 && clock.due()) await yieldToLoop();
  }
  return out;
}

/** a first-in first-out queue whose taking from the front costs nothing (shifting a long array costs its length) */
interface Fifo<T> { readonly size: number; push(item: T): void; shift(): T | undefined }

function fifo<T>(): Fifo<T> {
  let items: Array<T | undefined> = [];
  let head = 0;
  return {
    get size() { return items.length - head; },
    push(item) { items.push(item); },
    shift() {
      if (head >= items.length) return undefined;
      const item = items[head];
      items[head++] = undefined;
      if (head === items.length) items.length = head = 0;
      else if (head >= 1024 && head >= items.length / 2) { items = items.slice(head); head = 0; }
      return item;
    },
  };
}

interface Caller { go: () => void; gone?: () => boolean }

/**
 * Callers go on in turns of the event loop, in the order they came: a burst of work started at once (thousands of
 * requests read from a few connections in one go) then lets I/O and timers in between its parts, where it would
 * otherwise run as one stretch while every other connection waits to be read. How many go on in a turn follows how
 * long the last turn took: twice as many while turns stay under `turnMs`, half as many (down to one) once one runs
 * over, so that short requests still start together (and share a group commit) while long ones take a turn each.
 * Callers that give a `key` (who they say they are) take turns key by key: one of each key waiting, round and round,
 * and in order within a key; so thousands of one client's callers waiting do not hold back another's for their time.
 * While `allAtOnce` holds, everyone waiting goes on at the next turn (a server that stops drains what it took in).
 * A caller that says it has `gone` by the time its turn comes (a request whose client went away while it waited)
 * goes on without using up a place of the turn: a flood of such callers cannot hold back the ones still wanted.
 */
export function turns(turnMs = sliceMs, allAtOnce: () => boolean = () => false): (gone?: () => boolean, key?: string) => Promise<void> {
  const queues = new Map<string, Fifo<Caller>>();
  /** the keys with callers waiting, in the order their next caller goes */
  const rotation = fifo<string>();
  let waiting = 0, batch = 1, lastTurn = 0;
  const takeOne = (): Caller => {
    const key = rotation.shift()!;
    const queue = queues.get(key)!;
    const caller = queue.shift()!;
    if (queue.size) rotation.push(key); else queues.delete(key);
    waiting--;
    return caller;
  };
  const next = () => {
    const now = performance.now();
    if (lastTurn) batch = now - lastTurn > turnMs ? Math.max(1, batch >> 1) : Math.min(1024, batch * 2);
    if (allAtOnce()) batch = waiting;
    for (let n = 0; n < batch && waiting > 0;) {
      const caller = takeOne();
      if (!caller.gone?.()) n++;
      caller.go();
    }
    if (waiting > 0) { lastTurn = now; setImmediate(next); return; }
    lastTurn = 0;
  };
  return (gone, key = '') => new Promise<void>(resolve => {
    let queue = queues.get(key);
    if (!queue) { queues.set(key, queue = fifo()); rotation.push(key); }
    queue.push({ go: resolve, gone });
    if (++waiting === 1) setImmediate(next);
  });
}

/** how long one turn of the event loop may run request work before `breather` gives the loop back */
export const turnBudgetMs = 50;
/** when the work of this turn began, as far as `breather` knows: when it gave the loop back, or else when it was
 *  first asked in this turn (-1 until then) */
let turnStarted = -1;
const nextTurn = () => { turnStarted = -1; };

/**
 * Between the steps of a request (decode, patch, field ownership, validation, encode): goes on at once, or first
 * lets the event loop serve what waits when this turn has already run for `turnBudgetMs`. A step over a large
 * object takes tens to hundreds of milliseconds, and a write runs a dozen of them in one turn otherwise. Cheap
 * enough for every request: a clock read, and one immediate a turn that tells the next turn apart. A turn is timed
 * from the first call in it (or from the pause), so a caller also calls it before its first long step.
 */
export function breather(): Promise<void> | undefined {
  const now = performance.now();
  if (turnStarted < 0) {
    turnStarted = now;
    setImmediate(nextTurn);
    return undefined;
  }
  return now - turnStarted < turnBudgetMs ? undefined : new Promise<void>(resolve => setImmediate(() => {
    // the work that follows starts a turn of its own, measured from here
    turnStarted = performance.now();
    setImmediate(nextTurn);
    resolve();
  }));
}

/** runs a computation given in steps (a generator that yields where it may pause), with a `breather` at each pause */
export async function inSteps<T>(steps: Generator<void, T, void>): Promise<T> {
  await breather();   // times the first step too
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await breather();
  }
}
