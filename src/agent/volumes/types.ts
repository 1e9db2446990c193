// What a volume kind gets to set itself up, and what it gives back.

import type { Naming } from '../../api/naming.js';
import type { Client } from '../../client/rest-client.js';
import type { PodFacts } from '../fieldpath.js';
import type { AgentPod, Volume } from '../objects.js';
import type { Mounter } from './mount.js';

export interface VolumeContext {
  /** absent in standalone mode: volumes that read the API cannot be set up */
  client?: Client;
  names: Naming;
  mounter: Mounter;
  /** the node's allocatable: the size of memory-backed volumes, resource fields without a limit */
  allocatable: Record<string, number>;
  facts(pod: AgentPod): PodFacts;
  /** service-account tokens already issued, by pod uid, volume and path */
  tokens: Map<string, IssuedToken>;
  now(): number;
  /** SizeMemoryBackedVolumes: memory-backed volumes are sized (else a tmpfs of the kernel's default size) */
  sizeMemoryVolumes: boolean;
}

export interface IssuedToken {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

export interface PreparedVolume {
  /** the folder (or file) on the node that containers mount */
  path: string;
  /** the kind only allows reading (configMap, secret, downwardAPI, projected) or the volume says so */
  readOnly: boolean;
}

export interface VolumeKind {
  /** the volume's folder under pods/<uid>/volumes/, when the agent makes one: `<domain>~<name>` */
  folder?: string;
  /** creates, fetches and writes the volume; runs again on every refresh and must then only bring it up to date */
  setUp(volume: Volume, pod: AgentPod, dir: string, ctx: VolumeContext): Promise<PreparedVolume>;
  /** refreshed periodically (content read from the API or the pod) */
  refreshed?: boolean;
}

/** the API's answer to a missing object, as the reference words it */
export const notFound = (kind: string, name: string) => new Error(`${kind} "${name}" not found`);
