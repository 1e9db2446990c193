// Leader election through a Lease in the coordination group, with the reference's rules: a candidate takes
// the lease when it is free or its holder has not renewed it within leaseDuration (measured on the
// candidate's own clock from when it last saw the record change, so clocks need not agree); the leader
// renews every retryPeriod and steps down when it could not renew for renewDeadline. Every write is a
// compare-and-swap on the lease's resourceVersion, so two candidates never both win.

import { nowMicroTime } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { LeaderElectionOptions } from '../config/leader-election-options.js';
import { discoverNaming } from './discovery.js';
import { isAlreadyExists, isConflict, isNotFound, resourceRef, type Client, type ResourceRef } from './rest-client.js';

/** the settings of a component that runs under leader election, as its --leader-elect-* flags give them */
export type LeaderElectionSettings = LeaderElectionOptions;

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionConfig {
  client: Client;
  /** the leases collection (coordination.<domain>/v1) */
  leases: ResourceRef<Lease>;
  namespace: string;
  name: string;
  /** this candidate: the reference uses `<hostname>_<uuid>` */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** on a graceful stop the leader frees the lease, so another candidate need not wait for it to expire */
  releaseOnStop?: boolean;
  /** called on winning; the signal aborts when leadership ends */
  onStartedLeading(signal: AbortSignal): void;
  /** called when leadership ends (lost or stopped) after having started */
  onStoppedLeading?(): void;
  /** called whenever the observed holder changes */
  onNewLeader?(identity: string): void;
  log?(message: string): void;
}

export interface LeaderElector {
  isLeader(): boolean;
  /** the holder last seen */
  leader(): string | undefined;
  /** resolves when this candidate stops running: stop() was called, or it lost leadership after having had it */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  if (signal.aborted) return resolve();
  const t = setTimeout(() => { signal.removeEventListener('abort', wake); resolve(); }, ms);
  const wake = () => { clearTimeout(t); resolve(); };
  signal.addEventListener('abort', wake, { once: true });
});
const jittered = (ms: number) => ms * (1 + Math.random() * 0.2);

export function startLeaderElection(c: LeaderElectionConfig): LeaderElector {
  const leaseDurationMs = c.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = c.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = c.retryPeriodMs ?? 2_000;
  if (!(leaseDurationMs > renewDeadlineMs)) throw new Error('leader election: the lease duration must be longer than the renew deadline');
  if (!(renewDeadlineMs > retryPeriodMs * 1.2)) throw new Error('leader election: the renew deadline must be longer than 1.2 times the retry period');
  const leases = c.client.resource(c.leases, c.namespace);
  const stopper = new AbortController();
  let observed: { record: string; at: number } | undefined;
  let holder: string | undefined;
  let leading: AbortController | undefined;
  let current: Lease | undefined;

  const observe = (lease: Lease) => {
    const record = JSON.stringify(lease.spec ?? {});
    if (observed?.record !== record) observed = { record, at: Date.now() };
    const who = lease.spec?.holderIdentity || undefined;
    if (who !== holder) {
      holder = who;
      if (who) c.onNewLeader?.(who);
    }
  };

  /** one attempt to take or keep the lease */
  const tryAcquireOrRenew = async (): Promise<boolean> => {
    const now = nowMicroTime();
    const spec = { holderIdentity: c.identity, leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000), acquireTime: now, renewTime: now, leaseTransitions: 0 };
    let lease: Lease;
    try {
      lease = await leases.get(c.name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        current = await leases.create({ apiVersion: `${c.leases.group}/${c.leases.version}`, kind: 'Lease', metadata: { name: c.name, namespace: c.namespace }, spec });
        observe(current);
        return true;
      } catch (err) {
        if (isAlreadyExists(err)) return false;
        throw err;
      }
    }
    observe(lease);
    const mine = lease.spec?.holderIdentity === c.identity;
    const held = !!lease.spec?.holderIdentity && !mine;
    const durationMs = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (held && observed!.at + durationMs > Date.now()) return false;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        acquireTime: mine ? lease.spec?.acquireTime ?? now : now,
        leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
    try {
      current = await leases.update(next);
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
    observe(current);
    return true;
  };

  const attempt = async () => {
    try {
      return await tryAcquireOrRenew();
    } catch (e) {
      c.log?.(`leader election ${c.namespace}/${c.name}: ${(e as Error).message}`);
      return false;
    }
  };

  const run = async () => {
    // acquire
    while (!stopper.signal.aborted && !(await attempt())) await sleep(jittered(retryPeriodMs), stopper.signal);
    if (stopper.signal.aborted) return;
    c.log?.(`leader election ${c.namespace}/${c.name}: ${c.identity} became the leader`);
    leading = new AbortController();
    try {
      c.onStartedLeading(leading.signal);
    } catch (e) {
      c.log?.(`leader election: starting the leader's work failed: ${(e as Error).message}`);
    }
    // renew
    let lastRenew = Date.now();
    while (!stopper.signal.aborted) {
      await sleep(retryPeriodMs, stopper.signal);
      if (stopper.signal.aborted) break;
      if (await attempt()) { lastRenew = Date.now(); continue; }
      if (holder !== c.identity || Date.now() - lastRenew >= renewDeadlineMs) {
        c.log?.(`leader election ${c.namespace}/${c.name}: ${c.identity} lost the lease`);
        break;
      }
    }
    leading.abort();
    c.onStoppedLeading?.();
  };
  const done = run();

  return {
    isLeader: () => !!leading && !leading.signal.aborted,
    leader: () => holder,
    done,
    async stop() {
      const wasLeading = !!leading && !leading.signal.aborted;
      stopper.abort();
      await done;
      if (wasLeading && c.releaseOnStop && current) {
        const now = nowMicroTime();
        await leases.update({ ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } })
          .catch(() => {});
      }
    },
  };
}

/** A component that does its work only while it leads (the controller manager, the scheduler). */
export interface ElectedComponent {
  /** its name in log lines */
  what: string;
  client: Client;
  /** the API domain's naming; read from the server's discovery when not given */
  names?: Naming;
  election: LeaderElectionSettings;
  identity: string;
  log: { info(m: string): void; warn(m: string): void; error(m: string): void };
  /**
   * called when leadership is lost (not on stop()); without it the component stands for election again, as it must
   * inside the API server's process, where no supervisor starts a fresh one
   */
  onLostLeadership?(): void;
  /** its work while leading (all the time when election is off): resolves once it runs; the signal aborts when leadership ends */
  lead(names: Naming, signal: AbortSignal): Promise<void>;
  /** called when leadership ended, lost or stopped */
  stoppedLeading?(): void;
}

export interface RunningElected {
  /** resolves when this instance runs (its `lead` resolved), or found another leader */
  ready: Promise<void>;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/** Runs a component under leader election through a Lease in the coordination group, or at once when election is off. */
export function runElected(c: ElectedComponent): RunningElected {
  const stopping = new AbortController();
  let elector: LeaderElector | undefined;
  let leading = false;
  let markReady!: () => void;
  let fail!: (e: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => { markReady = resolve; fail = reject; });
  ready.catch(() => {});
  const report = (e: unknown) => c.log.error(`${c.what}: ${(e as Error).message}`);

  const lead = (names: Naming) => (signal: AbortSignal) => {
    leading = true;
    c.lead(names, signal).then(() => markReady(), (e) => { if (!signal.aborted) { report(e); fail(e); } });
  };
  const start = async (): Promise<void> => {
    const names = c.names ?? (await discoverNaming(c.client));
    if (stopping.signal.aborted) return;
    if (!c.election.enabled) return lead(names)(stopping.signal);
    elector = startLeaderElection({
      client: c.client, leases: resourceRef<Lease>(names.group('coordination'), 'v1', 'leases', 'Lease'), identity: c.identity,
      namespace: c.election.resourceNamespace || names.systemNamespace, name: c.election.resourceName,
      leaseDurationMs: c.election.leaseDurationMs, renewDeadlineMs: c.election.renewDeadlineMs, retryPeriodMs: c.election.retryPeriodMs,
      releaseOnStop: true,
      onStartedLeading: lead(names),
      onStoppedLeading: () => {
        leading = false;
        c.stoppedLeading?.();
        if (stopping.signal.aborted) return;
        c.log.warn(`${c.what} ${c.identity}: leadership lost`);
        // a program ends (its supervisor starts a fresh one); inside the API server it stands for election again
        if (c.onLostLeadership) c.onLostLeadership();
        else void start().catch(report);
      },
      onNewLeader: (who) => {
        if (who !== c.identity) { c.log.info(`${c.what}: ${who} is the leader`); markReady(); }
      },
      log: (m) => c.log.info(m),
    });
  };
  start().catch((e) => { report(e); fail(e); });

  return {
    ready,
    isLeader: () => (elector ? elector.isLeader() : leading),
    async stop() {
      stopping.abort();
      await elector?.stop();
      leading = false;
      c.stoppedLeading?.();
    },
  };
}
