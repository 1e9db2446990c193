// API priority and fairness: classifies each request by the stored FlowSchemas, finds its priority level, and has it
// wait for seats in the level's fair queues. The server's concurrency limit is shared among the limited levels in
// proportion to their nominal concurrency shares; exempt levels (and health probes) never wait.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { FlowControlSource, FlowRequest, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import { compileSchema, flowDistinguisher, orderSchemas, type CompiledSchema } from './match.js';
import { createQueueSet, nominalServiceSeconds, type Outcome, type QueueSet, type QueueSetConfig, type QueueStats, type RejectReason, type WaitingRequest } from './queueset.js';
import { estimateSeats } from './width.js';
import { defaultObjects } from './defaults.js';
import { boundedMemo } from '../util/memo.js';

export interface FlowControlOptions {
  names: Naming;
  /** seats shared by all limited levels (--max-requests-inflight plus --max-mutating-requests-inflight) */
  serverConcurrencyLimit: number;
  /** the longest a request waits in a queue before 429 */
  requestWaitLimitMs: number;
  /** how often seats are lent and borrowed between limited levels by their demand (default 10 s, as the reference) */
  borrowingIntervalMs?: number;
}

export interface Decision {
  flowSchema: { name: string; uid: string };
  priorityLevel: { name: string; uid: string };
  seats: number;
  outcome: Outcome;
}

export interface LevelState {
  name: string;
  exempt: boolean;
  /** the seats the level holds now: its nominal seats, less what it lends, plus what it borrows */
  concurrencyLimit: number;
  nominalLimit: number;
  /** the least it may hold (nominal less its lendable seats) and the most (nominal plus its borrowing limit) */
  lowerLimit: number;
  upperLimit: number;
  /** its seat demand over the last period: the most at once, the average, the smoothed value, and its target */
  demand: { highWatermark: number; average: number; smoothed: number; target: number };
  /** the level's virtual clock (seat-seconds per busy queue) */
  virtualNow: number;
  queues: QueueStats[];
  executingRequests: number;
  executingSeats: number;
  waitingRequests: number;
  queueLengths: number[];
  dispatched: number;
  rejected: Record<RejectReason, number>;
}

/** what the request dump shows of a waiting request */
export interface RequestDetail {
  flowSchema: string;
  distinguisher: string;
  user: string;
  verb: string;
  path: string;
  namespace: string;
  name: string;
  apiVersion: string;
  resource: string;
  subresource: string;
}

export interface FlowControl {
  /** classifies the request and waits for its seats; the outcome says whether it may run (signal: as the queue set's) */
  admit(req: FlowRequest, signal?: () => AbortSignal): Promise<Decision>;
  levels(): LevelState[];
  /** requests waiting in queues, by level */
  waiting(): Array<{ level: string } & WaitingRequest<RequestDetail>>;
  /** the share of its target every limited level got at the last lending round (1 when every target was met) */
  fairFraction(): number;
  /** lends and borrows seats between the limited levels now, by their demand since the last round */
  rebalance(): void;
  stop(): void;
  schemas(): Array<{ name: string; priorityLevel: string; precedence: number; distinguisher: string }>;
}

/** the levels as /debug/api_priority_and_fairness/dump_priority_levels shows them, one row each (an exempt one has no figures) */
export function dumpPriorityLevels(fc: FlowControl): string {
  const rows = [['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests',
    'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests']];
  for (const l of fc.levels().sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (l.exempt) { rows.push([l.name, ...Array<string>(9).fill('<none>')]); continue; }
    rows.push([l.name, String(l.queueLengths.filter(n => n > 0).length), String(l.executingRequests === 0 && l.waitingRequests === 0), 'false',
      String(l.waitingRequests), String(l.executingRequests), String(l.dispatched),
      String(l.rejected['queue-full'] + l.rejected['concurrency-limit']), String(l.rejected['time-out']), String(l.rejected.cancelled)]);
  }
  return table(rows);
}

/**
 * rows laid out as the reference's tab writer lays out its dumps: every cell but a row's last followed by its comma and
 * padded to its column's width (the widest such cell and one space, at least 8 characters)
 */
function table(rows: string[][]): string {
  const widths = rows[0].slice(0, -1).map((_, i) => Math.max(8, ...rows.map(r => r[i].length + 2)));
  return rows.map(r => r.map((c, i) => (i < r.length - 1 ? `${c},`.padEnd(widths[i]) : c)).join('')).join('\n') + '\n';
}

/** seat-seconds as the reference prints them */
const seatSeconds = (v: number) => `${v.toFixed(8)}ss`;

/** a time as Go's RFC3339Nano writes it: no trailing zeros in the fraction */
const rfc3339Nano = (ms: number) => new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');

/** every queue of every level, as /debug/api_priority_and_fairness/dump_queues shows them */
export function dumpQueues(fc: FlowControl): string {
  const rows = [['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']];
  for (const l of fc.levels().sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // an exempt level has no queue set; a level that does not queue (Reject) has one with no queues, so no rows
    if (l.exempt) { rows.push([l.name, ...Array<string>(8).fill('<none>')]); continue; }
    l.queues.forEach((q, i) => rows.push([l.name, String(i), String(q.waitingRequests), String(q.executingRequests), String(q.executingSeats),
      seatSeconds(q.virtualStart), String(q.waitingSeats), String(q.waitingSeats), seatSeconds(q.waitingSeats * nominalServiceSeconds)]));
  }
  return table(rows);
}

/** the requests waiting in queues, as /debug/api_priority_and_fairness/dump_requests shows them (details: who and what) */
export function dumpRequests(fc: FlowControl, details: boolean): string {
  const head = ['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency'];
  const rows = [details ? [...head, 'UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'] : head];
  for (const w of fc.waiting().sort((a, b) => (a.level < b.level ? -1 : a.level > b.level ? 1 : a.queue - b.queue || a.position - b.position))) {
    const d = w.detail;
    const row = [w.level, d.flowSchema, String(w.queue), String(w.position), d.distinguisher, rfc3339Nano(w.arrivedAt), String(w.seats), '0', '0s'];
    rows.push(details ? [...row, d.user, d.verb, d.path, d.namespace, d.name, d.apiVersion, d.resource, d.subresource] : row);
  }
  return table(rows);
}

/**
 * The seats each limited level holds after a lending round. Each level asks for its target (its smoothed demand, held
 * between what it must keep and what it may borrow up to); the one fraction of every target that shares out exactly
 * the server's seats is found by bisection, each level's share held within its limits.
 */
export function allocateSeats(levels: Array<{ lower: number; upper: number; target: number }>, total: number): { seats: number[]; fairFraction: number } {
  const at = (f: number) => levels.map(l => Math.min(l.upper, Math.max(l.lower, f * l.target)));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  if (!levels.length) return { seats: [], fairFraction: 1 };
  // even the most every level may hold does not use every seat (or the least exceeds them): nothing to share out
  if (sum(at(Number.MAX_VALUE)) <= total) return { seats: at(Number.MAX_VALUE), fairFraction: Infinity };
  if (sum(at(0)) >= total) return { seats: at(0), fairFraction: 0 };
  let lo = 0, hi = 1;
  while (sum(at(hi)) < total) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (sum(at(mid)) < total) lo = mid; else hi = mid;
  }
  return { seats: at(hi), fairFraction: hi };
}

/** health probes are never queued, whatever the configuration says */
export const isHealthProbe = (path: string) => /^\/(healthz|livez|readyz)(\/|$)/.test(path);

interface Level {
  name: string;
  uid: string;
  exempt: boolean;
  config: QueueSetConfig;
  queues?: QueueSet<RequestDetail>;
  nominal: number;
  lower: number;
  upper: number;
  demand: LevelState['demand'];
  exemptRunning: number;
  dispatched: number;
  rejected: Record<RejectReason, number>;
}

interface Compiled {
  generation: number;
  schemas: CompiledSchema[];
  catchAll: CompiledSchema;
}

/** a flow's 48-bit hash, the source of its hand of queues; remembered, since a flow sends many requests */
const flowHashOf = boundedMemo(key => createHash('sha256').update(key).digest().readUIntBE(0, 6), 10_000, 1024);
const flowHash = (schema: string, distinguisher: string): number => flowHashOf(`${schema}\0${distinguisher}`);

/** the seats a level may lend (lendablePercent of its nominal seats) and borrow (borrowingLimitPercent; unbounded when unset) */
export function lendingLimits(l: PriorityLevelConfiguration, nominal: number): { lower: number; upper: number } {
  const limited = l.spec?.limited;
  const lendable = Math.round(nominal * (limited?.lendablePercent ?? 0) / 100);
  const borrowing = limited?.borrowingLimitPercent === undefined || limited.borrowingLimitPercent === null
    ? Infinity : Math.round(nominal * limited.borrowingLimitPercent / 100);
  return { lower: nominal - lendable, upper: nominal + borrowing };
}

/** each limited level's share of the server's seats */
export function concurrencyLimits(levels: readonly PriorityLevelConfiguration[], serverLimit: number): Map<string, number> {
  const limited = levels.filter(l => l.spec?.type === 'Limited');
  // v1beta2 calls the shares assuredConcurrencyShares
  const shares = (l: PriorityLevelConfiguration) =>
    l.spec?.limited?.nominalConcurrencyShares ?? (l.spec?.limited as { assuredConcurrencyShares?: number } | undefined)?.assuredConcurrencyShares ?? 30;
  const total = limited.reduce((n, l) => n + shares(l), 0);
  return new Map(limited.map(l => [l.metadata?.name ?? '', total ? Math.max(1, Math.ceil(serverLimit * shares(l) / total)) : 1]));
}

function queueSetConfig(l: PriorityLevelConfiguration, limit: number): QueueSetConfig {
  const response = l.spec?.limited?.limitResponse;
  if (response?.type !== 'Queue') return { concurrency: limit, queues: 0, handSize: 0, queueLengthLimit: 0 };
  const q = response.queuing ?? {};
  const queues = q.queues ?? 64;
  return { concurrency: limit, queues, handSize: Math.min(q.handSize ?? 8, queues), queueLengthLimit: q.queueLengthLimit ?? 50 };
}

export function createFlowControl(source: FlowControlSource, o: FlowControlOptions): FlowControl {
  const defaults = defaultObjects(o.names);
  const levels = new Map<string, Level>();
  let compiled: Compiled | undefined;
  let fairFraction = 1;

  /** the stored configuration, with the mandatory objects standing in for any that are missing */
  function current(): Compiled {
    const cfg = source.config();
    if (compiled && compiled.generation === cfg.generation) return compiled;
    const withMandatory = <T extends FlowSchema | PriorityLevelConfiguration>(stored: readonly T[], mandatory: T[]) =>
      [...stored, ...mandatory.filter(m => !stored.some(s => s.metadata?.name === m.metadata?.name))];
    const levelObjects = withMandatory(cfg.priorityLevels, defaults.mandatoryLevels);
    const limits = concurrencyLimits(levelObjects, o.serverConcurrencyLimit);
    const live = new Set<string>();
    for (const l of levelObjects) {
      const name = l.metadata?.name ?? '';
      live.add(name);
      const exempt = l.spec?.type === 'Exempt';
      const nominal = limits.get(name) ?? 1;
      // a changed configuration starts again from the nominal seats; the next lending round moves them
      const config = queueSetConfig(l, nominal);
      const { lower, upper } = exempt ? { lower: 0, upper: 0 } : lendingLimits(l, nominal);
      let level = levels.get(name);
      if (!level) {
        level = {
          name, uid: '', exempt, config, nominal, lower, upper, exemptRunning: 0, dispatched: 0,
          demand: { highWatermark: 0, average: 0, smoothed: 0, target: 0 },
          rejected: { 'queue-full': 0, 'concurrency-limit': 0, 'time-out': 0, cancelled: 0 },
        };
        levels.set(name, level);
      }
      Object.assign(level, { uid: l.metadata?.uid ?? '', exempt, config, nominal, lower, upper });
      if (exempt) level.queues = undefined;
      else if (level.queues) level.queues.configure(config);
      else level.queues = createQueueSet<RequestDetail>(config);
    }
    // a level that is gone serves what it holds and is forgotten once idle
    for (const [name, l] of levels) if (!live.has(name) && (!l.queues || l.queues.idle()) && !l.exemptRunning) levels.delete(name);
    const schemas = orderSchemas(withMandatory(cfg.flowSchemas, defaults.mandatorySchemas).map(compileSchema))
      .filter(s => live.has(s.priorityLevel));
    compiled = { generation: cfg.generation, schemas, catchAll: compileSchema(defaults.mandatorySchemas.find(s => s.metadata?.name === 'catch-all')!) };
    return compiled;
  }

  /** one lending round: each limited level's demand since the last, smoothed, sets its target; the seats follow */
  function rebalance() {
    current();
    const limited = [...levels.values()].filter((l): l is Level & { queues: QueueSet<RequestDetail> } => !l.exempt && !!l.queues);
    for (const l of limited) {
      const d = l.queues.takeDemand();
      // demand falls slowly and rises at once, so a level that was busy a moment ago keeps its seats a while
      const smoothed = Math.max(d.highWatermark, 0.9 * l.demand.smoothed + 0.1 * d.average);
      l.demand = { highWatermark: d.highWatermark, average: d.average, smoothed, target: Math.min(l.upper, Math.max(l.lower, smoothed)) };
    }
    const total = limited.reduce((n, l) => n + l.nominal, 0);
    const { seats, fairFraction: f } = allocateSeats(limited.map(l => ({ lower: l.lower, upper: l.upper, target: l.demand.target })), total);
    fairFraction = f;
    limited.forEach((l, i) => {
      const concurrency = Math.max(1, Math.round(seats[i]));
      if (concurrency !== l.config.concurrency) { l.config = { ...l.config, concurrency }; l.queues.configure(l.config); }
    });
  }
  const timer = setInterval(rebalance, o.borrowingIntervalMs ?? 10_000);
  timer.unref();

  return {
    async admit(req, signal) {
      const c = current();
      const schema = c.schemas.find(s => s.matches(req)) ?? c.catchAll;
      const level = levels.get(schema.priorityLevel)!;
      const decision = (seats: number, outcome: Outcome): Decision => ({
        flowSchema: { name: schema.name, uid: schema.uid }, priorityLevel: { name: level.name, uid: level.uid }, seats, outcome,
      });
      if (level.exempt || !level.queues || isHealthProbe(req.info.path)) {
        level.exemptRunning++;
        level.dispatched++;
        let done = false;
        return decision(0, { admitted: true, release: () => { if (!done) { done = true; level.exemptRunning--; } } });
      }
      const seats = Math.min(estimateSeats(req, source.objectCount.bind(source)), level.config.concurrency);
      const distinguisher = flowDistinguisher(schema, req);
      const { info } = req;
      const detail: RequestDetail = {
        flowSchema: schema.name, distinguisher, user: req.user.username, verb: info.verb, path: info.path, namespace: info.namespace, name: info.name,
        apiVersion: info.isResourceRequest ? (info.apiGroup ? `${info.apiGroup}/${info.apiVersion}` : info.apiVersion) : '',
        resource: info.resource, subresource: info.subresource,
      };
      const outcome = await level.queues.admit(flowHash(schema.name, distinguisher), seats, o.requestWaitLimitMs, signal, detail);
      if (outcome.admitted) level.dispatched++; else level.rejected[outcome.reason]++;
      return decision(seats, outcome);
    },
    levels() {
      current();
      return [...levels.values()].map(l => {
        const s = l.queues?.stats();
        return {
          name: l.name, exempt: l.exempt, concurrencyLimit: l.exempt ? 0 : l.config.concurrency,
          nominalLimit: l.exempt ? 0 : l.nominal, lowerLimit: l.lower, upperLimit: l.upper, demand: { ...l.demand },
          virtualNow: s?.virtualNow ?? 0, queues: s?.queues ?? [],
          executingRequests: s?.executingRequests ?? l.exemptRunning, executingSeats: s?.executingSeats ?? 0,
          waitingRequests: s?.waitingRequests ?? 0, queueLengths: s?.queueLengths ?? [], dispatched: l.dispatched, rejected: { ...l.rejected },
        };
      });
    },
    waiting: () => [...levels.values()].flatMap(l => (l.queues?.waiting() ?? []).map(w => ({ level: l.name, ...w }))),
    fairFraction: () => fairFraction,
    rebalance,
    stop: () => clearInterval(timer),
    schemas: () => current().schemas.map(s => ({ name: s.name, priorityLevel: s.priorityLevel, precedence: s.precedence, distinguisher: s.distinguisher })),
  };
}
