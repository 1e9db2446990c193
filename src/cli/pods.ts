// The pod behind `POD` or `TYPE/NAME` (a Deployment, ReplicaSet, Job, Service ... picks one of the pods its
// selector matches) and the container to use, for logs, exec, attach, port-forward and cp.

import type { ApiObject } from '../api/meta.js';
import { CliError, type Cli } from './cli.js';
import { resourceFor } from './objects.js';
import { lookup } from './resources.js';

export async function podFor(cli: Cli, arg: string, inNamespace?: string): Promise<{ namespace: string; pod: any }> {
  const d = await cli.discovery();
  const namespace = inNamespace ?? (await cli.namespace()).namespace;
  const pods = await resourceFor(cli, { info: lookup(d, 'pods'), namespace });
  const slash = arg.indexOf('/');
  if (slash < 0) return { namespace, pod: await pods.get(arg) };
  const info = lookup(d, arg.slice(0, slash));
  const name = arg.slice(slash + 1);
  if (info.kind === 'Pod' && info.group === '') return { namespace, pod: await pods.get(name) };
  const owner: any = await (await resourceFor(cli, { info, namespace: info.namespaced ? namespace : undefined })).get(name);
  const selector = owner.spec?.selector?.matchLabels ?? (info.kind === 'Service' || info.kind === 'ReplicationController' ? owner.spec?.selector : undefined);
  if (!selector || !Object.keys(selector).length) throw new CliError(`cannot find the pods of ${info.resource}/${name}: it has no selector`);
  const list = await pods.list({ labelSelector: Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(',') });
  // running pods first, then the newest
  const ranked = list.items.sort((a: any, b: any) => Number(b.status?.phase === 'Running') - Number(a.status?.phase === 'Running')
    || String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)));
  if (!ranked.length) throw new CliError(`no pods found for ${info.resource}/${name}`);
  return { namespace, pod: ranked[0] };
}

/** `-c`, else the default-container annotation, else the first container (saying so when there are several) */
export async function containerOf(cli: Cli, pod: ApiObject & { spec?: any }, requested?: string): Promise<string> {
  const containers: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
  if (requested) {
    const all = [...containers, ...(pod.spec?.initContainers ?? []).map((c: any) => c.name), ...(pod.spec?.ephemeralContainers ?? []).map((c: any) => c.name)];
    if (!all.includes(requested)) throw new CliError(`container ${requested} is not valid for pod ${pod.metadata.name}`);
    return requested;
  }
  const annotation = pod.metadata.annotations?.[`kubectl.${(await cli.names()).labelDomain}/default-container`];
  if (annotation && containers.includes(annotation)) return annotation;
  if (!containers.length) throw new CliError(`pod ${pod.metadata.name} has no containers`);
  if (containers.length > 1) cli.err(`Defaulted container "${containers[0]}" out of: ${containers.join(', ')}\n`);
  return containers[0]!;
}
