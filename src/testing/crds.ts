// Loading CustomResourceDefinitions from files into a server, as envtest does for controller tests: every
// definition in the files and folders is applied, then awaited until it is established and its resources are
// served. Other kinds in the files are left alone.

import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { readManifestFiles } from '../client/manifests.js';
import { isNotFound, type Client, type ResourceClient } from '../client/rest-client.js';

const fieldManager = 'cluster-testing';

export interface LoadCRDsOptions {
  /** read subfolders too (default true) */
  recursive?: boolean;
  /** give up waiting for a definition to be served after this long (default 30 s) */
  timeoutMs?: number;
}

export async function loadCRDs(client: Client, names: Naming, paths: string[], o: LoadCRDsOptions = {}): Promise<ApiObject[]> {
  const group = names.group('apiextensions');
  const crds = client.resource({ group, version: 'v1', resource: 'customresourcedefinitions' });
  const manifests = (await readManifestFiles(paths, { recursive: o.recursive ?? true }))
    .filter((m) => m.object.kind === 'CustomResourceDefinition' && /^apiextensions\./.test(String(m.object.apiVersion)));
  const applied: ApiObject[] = [];
  for (const { object, source } of manifests) {
    checkApiVersion(object, source, `${group}/v1`);
    if (!object.metadata?.name) throw new Error(`${source}: a CustomResourceDefinition has no metadata.name`);
    applied.push(await crds.apply(object, { fieldManager, force: true }));
  }
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  for (const crd of applied) await waitServed(client, crds, crd, deadline);
  return applied;
}

/** a definition of another domain's group (or of the removed v1beta1) would be ignored by this server: say so */
function checkApiVersion(object: ApiObject, source: string, expected: string): void {
  if (object.apiVersion === expected) return;
  const [group, version] = (object.apiVersion ?? '').split('/');
  const hint = version === 'v1' ? `: start the test server with apiDomain: '${group!.slice('apiextensions.'.length)}'` : '';
  throw new Error(`${source}: CustomResourceDefinition ${object.metadata?.name ?? ''} is of ${object.apiVersion}, but this server serves ${expected}${hint}`);
}

/** established, and every served version answers a list */
async function waitServed(client: Client, crds: ResourceClient<any>, crd: any, deadline: number): Promise<void> {
  const name = crd.metadata.name;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    const current = await crds.get(name);
    const established = current.status?.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True');
    if (established) {
      const served = await Promise.all((current.spec.versions ?? []).filter((v: any) => v.served).map((v: any) =>
        client.request({ method: 'GET', path: `/apis/${current.spec.group}/${v.name}/${current.spec.names.plural}`, query: { limit: 1 } })
          .then(() => true, (e) => { if (isNotFound(e)) return false; throw e; })));
      if (served.every(Boolean)) return;
    }
    if (Date.now() > deadline) throw new Error(`CustomResourceDefinition ${name} was not served in time (established: ${!!established})`);
    await new Promise((r) => setTimeout(r, pause));
  }
}
