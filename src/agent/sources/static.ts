// Static pods: manifests read from --pod-manifest-path (a file or a directory, files starting with a
// dot ignored) and fetched from --manifest-url. They are given the reference's identity: name
// `<name>-<node>`, namespace `default` when unset, a uid hashed from the manifest, the node and the
// source, and the config annotations (hash, source, seen).

import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Naming } from '../../api/naming.js';
import { loadYaml } from '../../util/yaml.js';
import type { AgentPod, ObjectMeta, Pod, PodSpec } from '../objects.js';

export const configAnnotations = (names: Naming) => ({
  hash: names.label('config.hash'),
  source: names.label('config.source'),
  seen: names.label('config.seen'),
  mirror: names.label('config.mirror'),
});

export function isMirrorPod(pod: { metadata?: { annotations?: Record<string, string> } }, names: Naming): boolean {
  return !!pod.metadata?.annotations?.[configAnnotations(names).mirror];
}

export function isStaticPod(pod: { metadata?: { annotations?: Record<string, string> } }, names: Naming): boolean {
  const source = pod.metadata?.annotations?.[configAnnotations(names).source];
  return source === 'file' || source === 'http';
}

/** Gives a decoded manifest its static-pod identity; throws when it is not a Pod. */
export function staticPod(decoded: unknown, origin: string, source: 'file' | 'http', nodeName: string, names: Naming): AgentPod {
  const manifest = decoded as Partial<Pod> | null;
  if (manifest?.kind !== 'Pod' || manifest?.apiVersion !== 'v1') throw new Error(`${origin}: expected kind Pod, apiVersion v1; got kind ${manifest?.kind}, apiVersion ${manifest?.apiVersion}`);
  if (!manifest.metadata?.name) throw new Error(`${origin}: the pod has no metadata.name`);
  if (!Array.isArray(manifest.spec?.containers) || !manifest.spec.containers.length) throw new Error(`${origin}: the pod has no containers`);
  const copy = structuredClone(manifest) as Pod & { metadata: ObjectMeta; spec: PodSpec };
  const a = configAnnotations(names);
  const uid = copy.metadata.uid || createHash('md5').update(JSON.stringify(manifest)).update(`host:${nodeName}`).update(`${source}:${origin}`).digest('hex');
  const { resourceVersion: _rv, ...metadata } = copy.metadata;
  return {
    ...copy,
    metadata: {
      ...metadata,
      name: `${copy.metadata.name}-${nodeName}`,
      namespace: copy.metadata.namespace || 'default',
      uid,
      annotations: { ...(copy.metadata.annotations ?? {}), [a.hash]: uid, [a.source]: source, [a.seen]: new Date().toISOString() },
    },
    spec: {
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', ...copy.spec, nodeName,
      // static pods tolerate every NoExecute taint, as the reference sets
      tolerations: [...(copy.spec.tolerations ?? []), { operator: 'Exists', effect: 'NoExecute' }],
    },
    status: { phase: 'Pending' },
  };
}

/** Decodes one document: a Pod or a PodList (JSON or YAML, several YAML documents allowed). */
async function decode(text: string, origin: string): Promise<unknown[]> {
  const yaml = await loadYaml();
  let docs: unknown[];
  try {
    docs = yaml.parseAllDocuments(text).map((d) => {
      if ('errors' in d && d.errors.length) throw new Error(d.errors[0]!.message);
      return d.toJS() as unknown;
    });
  } catch (e) {
    throw new Error(`${origin}: not valid YAML or JSON: ${(e as Error).message}`);
  }
  return docs.filter((d) => d != null).flatMap((d) => ((d as { kind?: string }).kind === 'PodList' ? (d as { items?: unknown[] }).items ?? [] : [d]));
}

export interface StaticRead {
  pods: AgentPod[];
  errors: string[];
}

export async function readManifestPath(path: string, nodeName: string, names: Naming): Promise<StaticRead> {
  const pods: AgentPod[] = [];
  const errors: string[] = [];
  let files: string[];
  try {
    const s = await stat(path);
    files = s.isDirectory() ? (await readdir(path)).filter((f) => !f.startsWith('.')).sort().map((f) => join(path, f)) : [path];
  } catch (e) {
    return { pods, errors: [`${path}: ${(e as Error).message}`] };
  }
  for (const file of files) {
    try {
      if (!(await stat(file)).isFile()) continue;
      for (const m of await decode(await readFile(file, 'utf8'), file)) pods.push(staticPod(m, file, 'file', nodeName, names));
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return { pods, errors };
}

export async function fetchManifestUrl(url: string, headers: Record<string, string[]>, nodeName: string, names: Naming): Promise<StaticRead> {
  const h = new Headers();
  for (const [k, vs] of Object.entries(headers)) for (const v of vs) h.append(k, v);
  const res = await fetch(url, { headers: h, signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  const text = await res.text();
  if (!text.trim()) return { pods: [], errors: [] };
  const pods: AgentPod[] = [];
  const errors: string[] = [];
  for (const m of await decode(text, url)) {
    try {
      pods.push(staticPod(m, url, 'http', nodeName, names));
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return { pods, errors };
}
