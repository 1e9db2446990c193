// Nodes for scheduling tests without an agent: a Node object with allocatable resources and a Ready
// condition (the server keeps no status on create, so it is written after), once the node lifecycle
// controller has lifted the not-ready taint it was admitted with.
import { nowTimestamp } from '../../src/api/meta.js';
import type { Naming } from '../../src/api/naming.js';
import type { Client } from '../../src/client/rest-client.js';
import { waitFor } from '../agent/helpers.js';

export interface NodeOptions { cpu?: string; pods?: string; labels?: Record<string, string>; taints?: object[] }

export async function addReadyNode(client: Client, names: Naming, name: string, o: NodeOptions = {}) {
  const nodes = client.resource({ group: '', version: 'v1', resource: 'nodes' });
  await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [names.label('hostname')]: name, ...o.labels } }, spec: { taints: o.taints ?? [] } });
  const allocatable = { cpu: o.cpu ?? '4', memory: '16Gi', pods: o.pods ?? '110' };
  const now = nowTimestamp();
  await nodes.patchStatus(name, { status: {
    capacity: allocatable, allocatable,
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: now, lastTransitionTime: now }],
  } }, 'merge');
  const notReady = `node.${names.labelDomain}/not-ready`;
  await waitFor(`node ${name} without its not-ready taint`, async () => !(await nodes.get(name)).spec?.taints?.some((t: any) => t.key === notReady), 60_000);
}
