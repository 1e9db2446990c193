// Fair queuing for one priority level. A flow is dealt a hand of queues by shuffle sharding and joins the shortest;
// a full queue refuses. Requests start, oldest virtual finish first, while their seats fit the level's limit; a
// queue's virtual clock is charged seats × time, corrected when the request ends, so every busy flow gets an equal
// share of seat-seconds whatever its requests cost. Waiting ends with the wait limit or when the client goes away.

export interface QueueSetConfig {
  /** seats the level's requests may hold at once */
  concurrency: number;
  /** 0 for a level that refuses instead of queuing */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

/**
 * A request's fate; queueLength is the length of its queue once it joined it (1 for one served at once, as the
 * reference enqueues every request before dispatching), absent when it never joined one
 */
export type Outcome = ({ admitted: true; release(): void } | { admitted: false; reason: RejectReason }) & { queueLength?: number };

export interface QueueStats {
  waitingRequests: number;
  waitingSeats: number;
  executingRequests: number;
  executingSeats: number;
  /** the queue's virtual time: when its next request would start */
  virtualStart: number;
}

export interface QueueSetStats {
  executingRequests: number;
  executingSeats: number;
  waitingRequests: number;
  waitingSeats: number;
  /** waiting requests per queue */
  queueLengths: number[];
  queues: QueueStats[];
  /** the level's virtual clock */
  virtualNow: number;
}

/** a request waiting in a queue, as the debug dump shows it */
export interface WaitingRequest<D> {
  queue: number;
  position: number;
  seats: number;
  arrivedAt: number;
  detail: D;
}

/** the seats asked for over a period: the most at any moment, and the time-weighted average */
export interface SeatDemand { highWatermark: number; average: number }

export interface QueueSet<D = unknown> {
  /**
   * Waits for seats; resolves refused when the queue is full, the wait limit passes or the signal aborts. The signal
   * is asked for only when the request has to wait (most never do, and making one costs).
   */
  admit(flowHash: number, seats: number, waitLimitMs: number, signal?: () => AbortSignal, detail?: D): Promise<Outcome>;
  configure(c: QueueSetConfig): void;
  stats(): QueueSetStats;
  waiting(): WaitingRequest<D>[];
  /** the seat demand (executing and waiting) since the last call */
  takeDemand(): SeatDemand;
  /** nothing waits and nothing runs */
  idle(): boolean;
}

interface Waiter {
  flowHash: number;
  seats: number;
  queue: Queue;
  arrivedAt: number;
  detail: unknown;
  settle(o: Outcome): void;
}

interface Queue {
  waiting: Waiter[];
  /** virtual time at which the queue's next request starts */
  virtualStart: number;
  executingSeats: number;
  executingRequests: number;
}

/** the nominal seat-seconds charged when a request starts, corrected by its real duration when it ends */
export const nominalServiceSeconds = 1;

/**
 * Deals `handSize` distinct queue indexes out of `deckSize` from one hash value, as a card dealer would: each card
 * is a digit of the hash in a shrinking base, skipping the cards already dealt.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  /** the cards dealt, in order of value */
  const taken: number[] = [];
  let h = hash;
  for (let i = 0; i < Math.min(handSize, deckSize); i++) {
    const base = deckSize - i;
    let card = h % base;
    h = Math.floor(h / base);
    let at = 0;
    while (at < taken.length && card >= taken[at]) { card++; at++; }
    taken.splice(at, 0, card);
    hand.push(card);
  }
  return hand;
}

export function createQueueSet<D = unknown>(initial: QueueSetConfig, now: () => number = () => performance.now()): QueueSet<D> {
  let cfg = initial;
  let queues: Queue[] = [];
  let executingSeats = 0, executingRequests = 0, waitingRequests = 0, waitingSeats = 0;
  /** the level's virtual clock (seat-seconds per busy queue) and when it last moved */
  let virtualNow = 0, lastUpdate = now();
  /** demand since it was last taken: its high watermark, and seat-milliseconds for the average */
  let demandHigh = 0, demandIntegral = 0, demandSince = lastUpdate, demandAt = lastUpdate;
  const seatsAsked = () => executingSeats + waitingSeats;
  /** called before the seats asked change */
  function demandMoves() {
    const t = now();
    demandIntegral += seatsAsked() * (t - demandAt);
    demandAt = t;
  }
  /** called after */
  const demandMoved = () => { demandHigh = Math.max(demandHigh, seatsAsked()); };

  const newQueue = (): Queue => ({ waiting: [], virtualStart: virtualNow, executingSeats: 0, executingRequests: 0 });
  const busy = (q: Queue) => q.waiting.length > 0 || q.executingSeats > 0;

  function tick() {
    const t = now();
    const active = queues.reduce((n, q) => n + (busy(q) ? 1 : 0), 0);
    if (active) virtualNow += ((t - lastUpdate) / 1000) * Math.min(executingSeats, cfg.concurrency) / active;
    lastUpdate = t;
  }

  function layout(c: QueueSetConfig) {
    const waiters = queues.flatMap(q => q.waiting);
    queues = Array.from({ length: c.queues }, newQueue);
    hands = new Map();
    for (const w of waiters) {
      // a level that stopped queuing refuses what waited in it
      if (!queues.length) { demandMoves(); waitingRequests--; waitingSeats -= w.seats; demandMoved(); w.settle({ admitted: false, reason: 'concurrency-limit' }); continue; }
      w.queue = pick(w.flowHash);
      w.queue.waiting.push(w);
    }
  }

  /** hands dealt so far, by flow (a flow's hand changes only with the queues; dropped wholesale when large) */
  let hands = new Map<number, number[]>();
  const handOf = (flowHash: number) => {
    let hand = hands.get(flowHash);
    if (!hand) {
      if (hands.size >= 10_000) hands = new Map();
      hands.set(flowHash, hand = dealHand(flowHash, queues.length, cfg.handSize));
    }
    return hand;
  };

  /** the least loaded queue of the flow's hand */
  function pick(flowHash: number): Queue {
    let best: Queue | undefined, bestLoad = Infinity;
    for (const i of handOf(flowHash)) {
      const q = queues[i];
      const load = q.waiting.reduce((n, w) => n + w.seats, 0) + q.executingSeats;
      if (load < bestLoad) { best = q; bestLoad = load; }
    }
    return best!;
  }

  const fits = (seats: number) => executingSeats === 0 || executingSeats + seats <= cfg.concurrency;

  function start(w: Waiter | { seats: number; queue?: Queue }): () => void {
    const { seats } = w;
    const queue = w.queue;
    const startedAt = now();
    demandMoves();
    executingSeats += seats; executingRequests++;
    demandMoved();
    if (queue) { queue.executingSeats += seats; queue.executingRequests++; queue.virtualStart += seats * nominalServiceSeconds; }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      tick();
      demandMoves();
      executingSeats -= seats; executingRequests--;
      if (queue) {
        queue.executingSeats -= seats;
        queue.executingRequests--;
        // the charge made at the start becomes what the request really used
        queue.virtualStart -= seats * (nominalServiceSeconds - (now() - startedAt) / 1000);
      }
      dispatch();
    };
  }

  function dispatch() {
    for (;;) {
      let next: Queue | undefined, finish = Infinity;
      for (const q of queues) {
        if (!q.waiting.length) continue;
        const f = q.virtualStart + q.waiting[0].seats * nominalServiceSeconds;
        if (f < finish) { finish = f; next = q; }
      }
      // the head with the earliest finish waits for its seats; nothing overtakes it, so wide requests are not starved
      if (!next || !fits(next.waiting[0].seats)) return;
      const w = next.waiting.shift()!;
      demandMoves();
      waitingRequests--; waitingSeats -= w.seats;
      w.settle({ admitted: true, release: start(w) });
    }
  }

  layout(cfg);

  return {
    admit(flowHash, requested, waitLimitMs, signal, detail) {
      tick();
      const seats = Math.max(1, Math.min(requested, cfg.concurrency));
      if (!queues.length) {
        if (!fits(seats)) return Promise.resolve({ admitted: false, reason: 'concurrency-limit' });
        return Promise.resolve({ admitted: true, release: start({ seats }) });
      }
      const queue = pick(flowHash);
      if (!busy(queue)) queue.virtualStart = Math.max(queue.virtualStart, virtualNow);
      if (!waitingRequests && fits(seats)) return Promise.resolve({ admitted: true, release: start({ seats, queue }), queueLength: queue.waiting.length + 1 });
      if (queue.waiting.length >= cfg.queueLengthLimit) return Promise.resolve({ admitted: false, reason: 'queue-full' });
      const cancel = signal?.();
      if (cancel?.aborted) return Promise.resolve({ admitted: false, reason: 'cancelled' });
      return new Promise<Outcome>(resolve => {
        let timer: NodeJS.Timeout | undefined;
        const giveUp = (reason: RejectReason) => {
          const i = w.queue.waiting.indexOf(w);
          if (i < 0) return;
          w.queue.waiting.splice(i, 1);
          demandMoves();
          waitingRequests--; waitingSeats -= w.seats;
          w.settle({ admitted: false, reason });
          // the head may have been the one holding the others back
          dispatch();
        };
        const onAbort = () => giveUp('cancelled');
        let queueLength = 0;
        const w: Waiter = {
          flowHash, seats, queue, arrivedAt: Date.now(), detail,
          settle(o) {
            clearTimeout(timer);
            cancel?.removeEventListener('abort', onAbort);
            resolve({ ...o, queueLength });
          },
        };
        queueLength = queue.waiting.push(w);
        demandMoves();
        waitingRequests++; waitingSeats += seats;
        demandMoved();
        timer = setTimeout(() => giveUp('time-out'), waitLimitMs);
        cancel?.addEventListener('abort', onAbort, { once: true });
        dispatch();
      });
    },
    configure(c) {
      tick();
      const relayout = c.queues !== cfg.queues || c.handSize !== cfg.handSize;
      cfg = c;
      if (relayout) layout(c);
      dispatch();
    },
    stats: () => ({
      executingRequests, executingSeats, waitingRequests, waitingSeats, queueLengths: queues.map(q => q.waiting.length), virtualNow,
      queues: queues.map(q => ({
        waitingRequests: q.waiting.length, waitingSeats: q.waiting.reduce((n, w) => n + w.seats, 0),
        executingRequests: q.executingRequests, executingSeats: q.executingSeats, virtualStart: q.virtualStart,
      })),
    }),
    waiting: () => queues.flatMap((q, queue) => q.waiting.map((w, position) => ({ queue, position, seats: w.seats, arrivedAt: w.arrivedAt, detail: w.detail as D }))),
    takeDemand() {
      demandMoves();
      const span = demandAt - demandSince;
      const taken = { highWatermark: demandHigh, average: span > 0 ? demandIntegral / span : seatsAsked() };
      demandHigh = seatsAsked(); demandIntegral = 0; demandSince = demandAt;
      return taken;
    },
    idle: () => executingRequests === 0 && waitingRequests === 0,
  };
}
