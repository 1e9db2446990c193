// A node's Table row: readiness, roles from its labels, and what its agent reports.
import { apiDomains, naming } from '../../../../api/naming.js';
import type { Node, NodeSystemInfo } from '../../../../api/types/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { age, column, orNone, wide } from '../../columns.js';

export function nodeStatus(node: Node): string {
  const out: string[] = [];
  const ready = (node.status?.conditions ?? []).find(c => c.type === 'Ready');
  out.push(!ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady');
  if (node.spec?.unschedulable) out.push('SchedulingDisabled');
  return out.join(',');
}

// node roles come from `node-role.<labelDomain>/<role>` label keys and the `<labelDomain>/role` label, of either API domain
const roleLabelPrefixes = apiDomains.map(d => `node-role.${naming(d).labelDomain}/`);
const roleLabels = apiDomains.map(d => naming(d).label('role'));

/** roles from `node-role.<labelDomain>/<role>` keys and the `<labelDomain>/role` value */
export function nodeRoles(node: Node, prefixes: readonly string[] = roleLabelPrefixes, labels: readonly string[] = roleLabels): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    for (const p of prefixes) if (k.startsWith(p) && k.length > p.length) roles.add(k.slice(p.length));
    if (labels.includes(k) && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

const nodeAddress = (node: Node, type: string) => orNone((node.status?.addresses ?? []).find(a => a.type === type)?.address);
const nodeInfo = (node: Node, field: keyof NodeSystemInfo) => node.status?.nodeInfo?.[field] || '<unknown>';

export const columns: TableColumn<Node>[] = [
  column('Status', 'string', nodeStatus, 'The status of the node'),
  column('Roles', 'string', o => nodeRoles(o), 'The roles of the node'),
  age,
  column('Version', 'string', o => o.status?.nodeInfo?.kubeletVersion ?? '', 'Kubelet Version reported by the node.'),
  wide('Internal-IP', 'string', o => nodeAddress(o, 'InternalIP'), 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
  wide('External-IP', 'string', o => nodeAddress(o, 'ExternalIP'), 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
  wide('OS-Image', 'string', o => nodeInfo(o, 'osImage'), 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
  wide('Kernel-Version', 'string', o => nodeInfo(o, 'kernelVersion'), "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
  wide('Container-Runtime', 'string', o => nodeInfo(o, 'containerRuntimeVersion'), 'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).'),
];
