// ConfigMaps, Secrets, claims and volumes read from the API server for volumes and environment variables.

import { isNotFound } from '../../client/rest-client.js';
import type { ConfigMap, PersistentVolume, PersistentVolumeClaim, Secret } from '../objects.js';
import { notFound, type VolumeContext } from './types.js';

const refs = {
  configmap: { group: '', version: 'v1', resource: 'configmaps' },
  secret: { group: '', version: 'v1', resource: 'secrets' },
  persistentvolumeclaim: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  persistentvolume: { group: '', version: 'v1', resource: 'persistentvolumes' },
};

interface Kinds {
  configmap: ConfigMap;
  secret: Secret;
  persistentvolumeclaim: PersistentVolumeClaim;
  persistentvolume: PersistentVolume;
}

/** the object, or undefined when it does not exist; other failures throw */
export async function fetchObject<K extends keyof Kinds>(ctx: Pick<VolumeContext, 'client'>, kind: K, namespace: string | undefined, name: string): Promise<Kinds[K] | undefined> {
  if (!ctx.client) throw new Error(`cannot read ${kind} "${name}": the agent runs without an API server (standalone mode)`);
  try {
    return await ctx.client.resource<Kinds[K]>(refs[kind], namespace).get(name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export async function requireObject<K extends keyof Kinds>(ctx: Pick<VolumeContext, 'client'>, kind: K, namespace: string | undefined, name: string): Promise<Kinds[K]> {
  const o = await fetchObject(ctx, kind, namespace, name);
  if (!o) throw notFound(kind, name);
  return o;
}

export function configMapData(cm: ConfigMap): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(cm.data ?? {})) out.set(k, Buffer.from(v));
  for (const [k, v] of Object.entries(cm.binaryData ?? {})) out.set(k, Buffer.from(v, 'base64'));
  return out;
}

export function secretData(s: Secret): Map<string, Buffer> {
  return new Map(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
}
