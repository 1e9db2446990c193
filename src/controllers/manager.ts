// The controller manager: leader election, then the enabled controllers on one set of shared informers.
// It is a client of the API like any other, so it runs the same inside the API server's process and as
// its own program. Leadership lost stops the controllers; the program exits then, as the reference does.

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import { createInformerFactory, type InformerFactory } from '../client/informer.js';
import { startLeaderElection, type LeaderElector } from '../client/leader-election.js';
import { createEventRecorder, type EventRecorder } from '../client/events.js';
import { discoverNaming } from '../client/discovery.js';
import { controllerEnabled, type ControllerManagerOptions } from '../config/controller-manager-options.js';
import { refs as makeRefs, type Refs } from './types.js';
import { controllers as allControllers } from './registry.js';
import { serviceAccountClients } from './credentials.js';

export interface Logger { info(m: string): void; warn(m: string): void; error(m: string): void }

/** What a controller gets: clients, the shared informers, an event recorder, its worker count. */
export interface ControllerContext {
  name: string;
  /** the client its writes go through (its own service account's with --use-service-account-credentials) */
  client: Client;
  informers: InformerFactory;
  refs: Refs;
  names: Naming;
  recorder: EventRecorder;
  /** aborts when the controller manager stops or loses leadership */
  signal: AbortSignal;
  /** how many keys it works on at once (`--concurrent-*-syncs`) */
  workers: number;
  options: ControllerManagerOptions;
  log: Logger;
  /** resolves once the informers asked for when the controllers started have listed */
  synced: Promise<void>;
}

/** One controller: `start` registers informers and handlers and starts its workers once `ctx.synced` resolves. */
export interface Controller {
  name: string;
  /** the reference's component name for events, e.g. `deployment-controller` */
  component?: string;
  /** the service account it acts as with --use-service-account-credentials */
  serviceAccount?: string;
  start(ctx: ControllerContext): { ready?: Promise<void> } | void;
}

export interface StartControllerManagerOptions extends ControllerManagerOptions {
  /** the client with the controller manager's own credentials (informers, leader election) */
  client: Client;
  /** the API domain's naming; read from the server's discovery when not given */
  names?: Naming;
  /** this candidate's identity for leader election; default `<hostname>_<uuid>` */
  identity?: string;
  log: Logger;
  /** called when leadership is lost (not on stop()) */
  onLostLeadership?(): void;
}

export interface RunningControllerManager {
  /** resolves when this instance runs its controllers with synced informers, or found another leader */
  ready: Promise<void>;
  isLeader(): boolean;
  /** the controllers that are running */
  running(): string[];
  stop(): Promise<void>;
}

export function startControllerManager(o: StartControllerManagerOptions): RunningControllerManager {
  const identity = o.identity ?? `${hostname()}_${randomUUID()}`;
  const enabled = allControllers.filter((c) => controllerEnabled(c.name, o.controllers)
    && (c.name !== 'garbagecollector' || o.enableGarbageCollector));
  let markReady!: () => void;
  let fail!: (e: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => { markReady = resolve; fail = reject; });
  let running: string[] = [];
  let elector: LeaderElector | undefined;
  const stopping = new AbortController();

  const run = async (names: Naming, signal: AbortSignal) => {
    const refs = makeRefs(names);
    const resyncMs = o.minResyncPeriodMs > 0 ? Math.floor(o.minResyncPeriodMs * (1 + Math.random())) : 0;
    const informers = createInformerFactory(o.client, {
      resyncMs, onError: (e) => { if (!signal.aborted) o.log.warn(`informer: ${(e as Error).message}`); },
    });
    const clientFor = o.useServiceAccountCredentials
      ? await serviceAccountClients(o.client, names, refs, names.systemNamespace, { qps: o.kubeApiQps, burst: o.kubeApiBurst }, o.log, signal)
      : () => o.client;
    let markSynced!: () => void;
    const synced = new Promise<void>((r) => (markSynced = r));
    const readiness: Promise<void>[] = [synced];
    for (const c of enabled) {
      const component = c.component ?? `${c.name}-controller`;
      const client = clientFor(c.serviceAccount ?? component);
      const ctx: ControllerContext = {
        name: c.name, client, informers, refs, names, signal, options: o, log: o.log, synced,
        workers: o.concurrency[c.name] ?? 1,
        recorder: createEventRecorder(client, { names, component, host: hostname(), log: (m) => o.log.warn(m) }),
      };
      try {
        const started = c.start(ctx);
        if (started?.ready) readiness.push(started.ready);
        running.push(c.name);
      } catch (e) {
        o.log.error(`controller ${c.name} failed to start: ${(e as Error).message}`);
      }
    }
    informers.start();
    signal.addEventListener('abort', () => informers.stop(), { once: true });
    await informers.waitForSync(signal);
    markSynced();
    o.log.info(`controller manager ${identity}: running ${running.join(', ')}`);
    await Promise.all(readiness);
  };

  const lead = (names: Naming) => (signal: AbortSignal) => {
    run(names, signal).then(markReady, (e) => {
      if (!signal.aborted) { o.log.error(`controller manager: ${(e as Error).message}`); fail(e); }
    });
  };

  const start = async () => {
    const names = o.names ?? await discoverNaming(o.client);
    if (stopping.signal.aborted) return;
    if (!o.leaderElection.enabled) return lead(names)(stopping.signal);
    elector = startLeaderElection({
      client: o.client, leases: makeRefs(names).leases, identity,
      namespace: o.leaderElection.resourceNamespace || names.systemNamespace,
      name: o.leaderElection.resourceName,
      leaseDurationMs: o.leaderElection.leaseDurationMs,
      renewDeadlineMs: o.leaderElection.renewDeadlineMs,
      retryPeriodMs: o.leaderElection.retryPeriodMs,
      releaseOnStop: true,
      onStartedLeading: lead(names),
      onStoppedLeading: () => {
        running = [];
        if (!stopping.signal.aborted) { o.log.warn(`controller manager ${identity}: leadership lost`); o.onLostLeadership?.(); }
      },
      onNewLeader: (who) => {
        if (who !== identity) { o.log.info(`controller manager: ${who} is the leader`); markReady(); }
      },
      log: (m) => o.log.info(m),
    });
  };
  start().catch((e) => { o.log.error(`controller manager: ${(e as Error).message}`); fail(e); });
  ready.catch(() => {});

  return {
    ready,
    isLeader: () => (elector ? elector.isLeader() : running.length > 0),
    running: () => [...running],
    async stop() {
      stopping.abort();
      await elector?.stop();
      running = [];
    },
  };
}
