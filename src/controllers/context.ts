// What a controller is given and what it is: the contract between the controller manager and each controller.
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import type { InformerFactory } from '../client/informer.js';
import type { EventRecorder } from '../client/events.js';
import type { DiscoveredResource } from '../client/discovery.js';
import type { Refs } from './types.js';

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
  log: Logger;
  /** resolves once the informers this controller asked for while starting have listed */
  synced: Promise<void>;
  /** the server's resources (discovery, shared between controllers and read again at most every few seconds) */
  discover(): Promise<DiscoveredResource[]>;
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
