// The controller manager: leader election, then the enabled controllers on one set of shared informers.
// It is a client of the API like any other, so it runs the same inside the API server's process and as
// its own program. Leadership lost stops the controllers; the program exits then, as the reference does.

import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import { createInformerFactory, type InformerFactory } from '../client/informer.js';
import { compactObject } from '../client/compact.js';
import { runElected, type LeaderElectionSettings } from '../client/leader-election.js';
import { createEventRecorder } from '../client/events.js';
import { discoverResources, type DiscoveredResource } from '../client/discovery.js';
import { refs as makeRefs } from './types.js';
import { controllers as allControllers } from './registry.js';
import { defaultControllerSettings, type Controller, type ControllerContext, type ControllerSettings, type Logger } from './context.js';

export type { Controller, ControllerContext, ControllerSettings, Logger };
import { serviceAccountClients } from './credentials.js';

class NotServed extends Error {
  constructor(groupVersion: string, resource: string) { super(`the server does not serve ${resource} in ${groupVersion}`); }
}

const discoveryTtlMs = 5000;


export interface StartControllerManagerOptions {
  /** the names of the controllers to run (those of registry.ts) */
  controllers: readonly string[];
  /** workers per controller, by name; 1 when not given */
  concurrency: Record<string, number>;
  leaderElection: LeaderElectionSettings;
  /** each controller's client (and the informers' by default) has this QPS limit and burst */
  kubeApiQps: number;
  kubeApiBurst: number;
  /** each controller acts as a service account of its own in the system namespace */
  useServiceAccountCredentials: boolean;
  /** informers tell every object again at a random interval between this and twice this; 0: never */
  minResyncPeriodMs: number;
  /** settings of individual controllers; the defaults of the reference where not given */
  settings?: Partial<ControllerSettings>;
  /** the client with the controller manager's own credentials (informers, leader election) */
  client: Client;
  /**
   * the client of the shared informers' lists and watches; default: one like `client` with the QPS limits of
   * the options (the server's own process passes one without limits: its watch cache serves them)
   */
  informerClient?: Client;
  /** the API domain's naming; read from the server's discovery when not given */
  names?: Naming;
  /** this candidate's identity for leader election; default `<hostname>_<uuid>` */
  identity?: string;
  log: Logger;
  /** gives each controller's work queue what it reports to, for metrics (the separate program's /metrics) */
  observeQueue?: ControllerContext['observeQueue'];
  /**
   * called when leadership is lost (not on stop()); without it the manager stands for election again, as it
   * must inside the API server's process, where no supervisor starts a fresh one
   */
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
  const unknown = o.controllers.filter((n) => !allControllers.some((c) => c.name === n));
  if (unknown.length) throw new Error(`unknown controllers: ${unknown.join(', ')}`);
  const enabled = allControllers.filter((c) => o.controllers.includes(c.name));
  const settings: ControllerSettings = { ...defaultControllerSettings(), ...o.settings };
  settings.rootCaPem ??= o.client.config.caPem;
  let running: string[] = [];

  const run = async (names: Naming, signal: AbortSignal) => {
    // every controller and queue listens for the end of leadership
    setMaxListeners(0, signal);
    const refs = makeRefs(names);
    const resyncMs = o.minResyncPeriodMs > 0 ? Math.floor(o.minResyncPeriodMs * (1 + Math.random())) : 0;
    const informers = createInformerFactory(o.informerClient ?? o.client.withLimits({ qps: o.kubeApiQps, burst: o.kubeApiBurst }), {
      resyncMs, onError: (e) => { if (!signal.aborted) o.log.warn(`informer: ${(e as Error).message}`); },
      // no controller reads managed fields: kept without them (and with their specs' strings shared), pods take half the memory
      transform: compactObject,
    });
    const clientFor = o.useServiceAccountCredentials
      ? await serviceAccountClients(o.client, names, refs, names.systemNamespace, { qps: o.kubeApiQps, burst: o.kubeApiBurst }, o.log, signal)
      // each controller has a client (and QPS limit) of its own, as in the reference
      : () => o.client.withLimits({ qps: o.kubeApiQps, burst: o.kubeApiBurst });
    const readiness: Promise<void>[] = [];
    // discovery, shared by the controllers that need it (and read again at most every few seconds)
    let discovered: { at: number; list: ReturnType<typeof discoverResources> } | undefined;
    /** what the server serves, as discovery last told (a custom resource defined since the start is served too) */
    const served = new Set<string>();
    const discovery = (notBefore = Date.now() - discoveryTtlMs) => {
      if (!discovered || discovered.at < notBefore) {
        const list = discoverResources(o.client).then((d) => {
          for (const r of d.resources) served.add(`${r.group}/${r.version}/${r.resource}`);
          return d;
        });
        discovered = { at: Date.now(), list };
        list.catch(() => { if (discovered?.list === list) discovered = undefined; });
      }
      return discovered.list;
    };
    const discover = async (notBefore?: number) => (await discovery(notBefore)).resources;
    const discoveryFailures = async (notBefore?: number) => (await discovery(notBefore)).failed;
    // a controller whose resources the server does not serve (--runtime-config) is not started, as in the reference
    await discover();
    // stopped while discovering: nothing may start, since an aborted signal never calls its listeners again
    if (signal.aborted) return;
    for (const c of enabled) {
      const component = c.component ?? `${c.name}-controller`;
      const client = c.serviceAccount === null ? o.client.withLimits({ qps: o.kubeApiQps, burst: o.kubeApiBurst }) : clientFor(c.serviceAccount ?? component);
      // each controller's workers wait for the informers it uses, as the reference's WaitForCacheSync
      const used: Array<Promise<void>> = [];
      const own: InformerFactory = {
        ...informers,
        informer(ref, sel) {
          if (!served.has(`${ref.group}/${ref.version}/${ref.resource}`)) throw new NotServed(ref.group ? `${ref.group}/${ref.version}` : ref.version, ref.resource);
          const inf = informers.informer(ref, sel);
          used.push(inf.synced);
          return inf;
        },
      };
      const synced = new Promise<void>((resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        // the informers it asked for when starting are known once start returns
        queueMicrotask(() => Promise.all(used).then(() => resolve(), reject));
      });
      synced.catch(() => {});
      const ctx: ControllerContext = {
        name: c.name, client, informers: own, refs, names, signal, log: o.log, synced, discover, discoveryFailures, settings,
        workers: o.concurrency[c.name] ?? 1, observeQueue: o.observeQueue,
        // the reference's controllers name no host in their events (source is the component alone)
        recorder: createEventRecorder(client, { names, component, log: (m) => o.log.warn(m) }),
      };
      try {
        const started = c.start(ctx);
        if (started?.ready) readiness.push(started.ready);
        running.push(c.name);
      } catch (e) {
        if (e instanceof NotServed) o.log.info(`controller ${c.name} not started: ${e.message}`);
        else o.log.error(`controller ${c.name} failed to start: ${(e as Error).message}`);
      }
    }
    informers.start();
    signal.addEventListener('abort', () => informers.stop(), { once: true });
    o.log.info(`controller manager ${identity}: running ${running.join(', ')}`);
    await Promise.all(readiness);
  };

  const elected = runElected({
    what: 'controller manager', client: o.client, names: o.names, election: o.leaderElection, identity, log: o.log,
    onLostLeadership: o.onLostLeadership, lead: run, stoppedLeading: () => { running = []; },
  });
  return { ...elected, running: () => [...running] };
}
