// What the runtime gets for one container: the environment (envFrom, then env: values, the downward
// API, ConfigMap and Secret keys; $(VAR) references to earlier variables expanded in values, command and
// args), its mounts, its Linux resources and its security context.

import { join } from 'node:path';
import type { AgentPod, Container, EnvVar } from './objects.js';
import { fieldValue, resourceValue, type PodFacts } from './fieldpath.js';
import { configMapData, fetchObject, secretData } from './volumes/api-objects.js';
import { expand, type VolumeManager } from './volumes/index.js';
import type { VolumeContext } from './volumes/types.js';
import { containerResources, type LinuxResources, type ResourceSettings } from './resources.js';
import { containerSecurity } from './security.js';
import type { ContainerConfig } from './runtime/types.js';

/** the environment variable names the reference accepts from envFrom (others are skipped) */
const envName = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export interface ContainerConfigDeps {
  volumes: VolumeManager;
  api: Pick<VolumeContext, 'client'>;
  facts: PodFacts;
  allocatable: Record<string, number>;
  resources: ResourceSettings;
  seccompDefault: boolean;
  /** exclusive CPUs of the CPU manager's static policy, or the shared pool */
  cpuset?(pod: AgentPod, c: Container): string;
  /** the memory nodes of the memory manager's static policy */
  memoryNodes?(pod: AgentPod, c: Container): string;
  /** the pod's service variables (KUBERNETES_SERVICE_HOST, ...); absent in standalone mode, where there are none */
  serviceEnv?(pod: AgentPod): Promise<Map<string, string>>;
}

export async function containerEnv(pod: AgentPod, c: Container, d: Pick<ContainerConfigDeps, 'api' | 'facts' | 'allocatable' | 'serviceEnv'>): Promise<Map<string, string>> {
  const services = await d.serviceEnv?.(pod) ?? new Map<string, string>();
  // what $(VAR) sees: the container's own variables, else the services'
  const env = new Map(services);
  const own = new Set<string>();
  const ns = pod.metadata.namespace;
  for (const from of c.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    let data: Map<string, Buffer> | undefined;
    if (from.configMapRef) {
      const cm = await fetchObject(d.api, 'configmap', ns, from.configMapRef.name ?? '');
      if (!cm && !from.configMapRef.optional) throw new Error(`configmap "${from.configMapRef.name}" not found`);
      data = cm && configMapData(cm);
    } else if (from.secretRef) {
      const s = await fetchObject(d.api, 'secret', ns, from.secretRef.name ?? '');
      if (!s && !from.secretRef.optional) throw new Error(`secret "${from.secretRef.name}" not found`);
      data = s && secretData(s);
    }
    for (const [k, v] of data ?? []) if (envName.test(prefix + k)) { env.set(prefix + k, v.toString()); own.add(prefix + k); }
  }
  for (const e of c.env ?? []) {
    const value = await envValue(pod, c, e, env, d);
    if (value !== undefined) { env.set(e.name, value); own.add(e.name); }
  }
  // the container's own variables, then the services' it does not set itself
  return new Map([...[...own].map((k): [string, string] => [k, env.get(k)!]), ...[...services].filter(([k]) => !own.has(k))]);
}

async function envValue(pod: AgentPod, c: Container, e: EnvVar, env: Map<string, string>, d: Pick<ContainerConfigDeps, 'api' | 'facts' | 'allocatable'>): Promise<string | undefined> {
  const from = e.valueFrom;
  if (!from) return expand(e.value ?? '', env);
  if (from.fieldRef) return fieldValue(pod, from.fieldRef.fieldPath, d.facts);
  if (from.resourceFieldRef) return resourceValue(pod, c.name, from.resourceFieldRef, d.allocatable);
  const ref = from.configMapKeyRef ?? from.secretKeyRef;
  if (!ref) return '';
  const kind = from.configMapKeyRef ? 'configmap' : 'secret';
  const ns = pod.metadata.namespace;
  const data = kind === 'configmap'
    ? await fetchObject(d.api, 'configmap', ns, ref.name ?? '').then((o) => o && configMapData(o))
    : await fetchObject(d.api, 'secret', ns, ref.name ?? '').then((o) => o && secretData(o));
  const v = data?.get(ref.key);
  if (v !== undefined) return v.toString();
  if (ref.optional) return undefined;
  throw new Error(data ? `couldn't find key ${ref.key} in ${kind === 'configmap' ? 'ConfigMap' : 'Secret'} ${pod.metadata.namespace}/${ref.name}` : `${kind} "${ref.name}" not found`);
}

/** the runtime label holding the image a container was started for: once the pod names another, it is restarted */
export const specImageLabel = 'container-image';

export async function containerConfig(pod: AgentPod, c: Container, attempt: number, imageRef: string, d: ContainerConfigDeps): Promise<ContainerConfig> {
  const env = await containerEnv(pod, c, d);
  const resources: LinuxResources = {
    ...containerResources(pod, c, d.resources),
    ...(d.cpuset ? { cpusetCpus: d.cpuset(pod, c) } : {}),
    ...(d.memoryNodes ? { cpusetMems: d.memoryNodes(pod, c) } : {}),
  };
  return {
    name: c.name, attempt, image: imageRef,
    command: (c.command ?? []).map((s) => expand(s, env)), args: (c.args ?? []).map((s) => expand(s, env)),
    env: [...env].map(([name, value]) => ({ name, value })),
    workingDir: c.workingDir,
    mounts: await d.volumes.containerMounts(pod, c, env),
    logPath: join(c.name, `${attempt}.log`),
    labels: { [specImageLabel]: c.image ?? '' }, annotations: {},
    resources,
    security: containerSecurity(pod, c, d.seccompDefault),
    stdin: !!c.stdin, stdinOnce: !!c.stdinOnce, tty: !!c.tty,
    init: !!pod.spec.initContainers?.some((i) => i.name === c.name),
    ...(d.volumes.simulatedFiles ? { mountedFiles: () => d.volumes.simulatedFiles!(pod, c) } : {}),
  };
}
