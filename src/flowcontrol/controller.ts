// API priority and fairness: classifies each request by the stored FlowSchemas, finds its priority level, and has it
// wait for seats in the level's fair queues. The server's concurrency limit is shared among the limited levels in
// proportion to their nominal concurrency shares; exempt levels (and health probes) never wait.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { FlowControlSource, FlowRequest, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import { compileSchema, flowDistinguisher, orderSchemas, type CompiledSchema } from './match.js';
import { createQueueSet, type Outcome, type QueueSet, type QueueSetConfig, type RejectReason } from './queueset.js';
import { estimateSeats } from './width.js';
import { defaultObjects } from './defaults.js';

export interface FlowControlOptions {
  names: Naming;
  /** seats shared by all limited levels (--max-requests-inflight plus --max-mutating-requests-inflight) */
  serverConcurrencyLimit: number;
  /** the longest a request waits in a queue before 429 */
  requestWaitLimitMs: number;
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
  concurrencyLimit: number;
  executingRequests: number;
  executingSeats: number;
  waitingRequests: number;
  queueLengths: number[];
  dispatched: number;
  rejected: Record<RejectReason, number>;
}

export interface FlowControl {
  /** classifies the request and waits for its seats; the outcome says whether it may run (signal: as the queue set's) */
  admit(req: FlowRequest, signal?: () => AbortSignal): Promise<Decision>;
  levels(): LevelState[];
  schemas(): Array<{ name: string; priorityLevel: string; precedence: number; distinguisher: string }>;
}

/** the levels as /debug/api_priority_and_fairness/dump_priority_levels shows them, one comma-separated row each */
export function dumpPriorityLevels(fc: FlowControl): string {
  const rows = [['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests',
    'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests', 'ExecutingSeats', 'ConcurrencyLimit']];
  for (const l of fc.levels().sort((a, b) => (a.name < b.name ? -1 : 1))) {
    rows.push([l.name, String(l.queueLengths.filter(n => n > 0).length), String(l.executingRequests === 0 && l.waitingRequests === 0), 'false',
      String(l.waitingRequests), String(l.executingRequests), String(l.dispatched),
      String(l.rejected['queue-full'] + l.rejected['concurrency-limit']), String(l.rejected['time-out']), String(l.rejected.cancelled),
      String(l.executingSeats), String(l.concurrencyLimit)]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)));
  return rows.map(r => r.map((c, i) => c.padEnd(widths[i])).join(', ').trimEnd()).join('\n') + '\n';
}

/** health probes are never queued, whatever the configuration says */
export const isHealthProbe = (path: string) => /^\/(healthz|livez|readyz)(\/|$)/.test(path);

interface Level {
  name: string;
  uid: string;
  exempt: boolean;
  config: QueueSetConfig;
  queues?: QueueSet;
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
let flowHashes = new Map<string, number>();
function flowHash(schema: string, distinguisher: string): number {
  const key = `${schema}\0${distinguisher}`;
  let h = flowHashes.get(key);
  if (h === undefined) {
    if (flowHashes.size >= 10_000) flowHashes = new Map();
    flowHashes.set(key, h = createHash('sha256').update(key).digest().readUIntBE(0, 6));
  }
  return h;
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
      const config = queueSetConfig(l, limits.get(name) ?? 1);
      let level = levels.get(name);
      if (!level) {
        level = { name, uid: '', exempt, config, exemptRunning: 0, dispatched: 0, rejected: { 'queue-full': 0, 'concurrency-limit': 0, 'time-out': 0, cancelled: 0 } };
        levels.set(name, level);
      }
      level.uid = l.metadata?.uid ?? '';
      level.exempt = exempt;
      level.config = config;
      if (exempt) level.queues = undefined;
      else if (level.queues) level.queues.configure(config);
      else level.queues = createQueueSet(config);
    }
    // a level that is gone serves what it holds and is forgotten once idle
    for (const [name, l] of levels) if (!live.has(name) && (!l.queues || l.queues.idle()) && !l.exemptRunning) levels.delete(name);
    const schemas = orderSchemas(withMandatory(cfg.flowSchemas, defaults.mandatorySchemas).map(compileSchema))
      .filter(s => live.has(s.priorityLevel));
    compiled = { generation: cfg.generation, schemas, catchAll: compileSchema(defaults.mandatorySchemas.find(s => s.metadata?.name === 'catch-all')!) };
    return compiled;
  }

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
      const outcome = await level.queues.admit(flowHash(schema.name, flowDistinguisher(schema, req)), seats, o.requestWaitLimitMs, signal);
      if (outcome.admitted) level.dispatched++; else level.rejected[outcome.reason]++;
      return decision(seats, outcome);
    },
    levels() {
      current();
      return [...levels.values()].map(l => {
        const s = l.queues?.stats();
        return {
          name: l.name, exempt: l.exempt, concurrencyLimit: l.exempt ? 0 : l.config.concurrency,
          executingRequests: s?.executingRequests ?? l.exemptRunning, executingSeats: s?.executingSeats ?? 0,
          waitingRequests: s?.waitingRequests ?? 0, queueLengths: s?.queueLengths ?? [], dispatched: l.dispatched, rejected: { ...l.rejected },
        };
      });
    },
    schemas: () => current().schemas.map(s => ({ name: s.name, priorityLevel: s.priorityLevel, precedence: s.precedence, distinguisher: s.distinguisher })),
  };
}
