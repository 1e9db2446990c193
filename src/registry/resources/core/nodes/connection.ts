// How the server reaches a node's agent: the node's address of the first preferred type, the agent's port from the
// node's status, and the server's client certificate (--kubelet-* flags). nodes/proxy goes there too.
import type { Stored } from '../../../../api/meta.js';
import type { Node } from '../../../../api/types/core-v1.js';
import { badRequest, serviceUnavailable } from '../../../../api/status.js';
import type { ConnectTarget, RestRequest } from '../../../types.js';

/** the agent's port when the node does not say */
const defaultAgentPort = 10250;

/** `[scheme:]name[:port]`, the form of a proxy subresource's name */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } {
  const parts = id.split(':');
  if (parts.length === 1) return { scheme: '', name: parts[0]!, port: '' };
  if (parts.length === 2) return { scheme: '', name: parts[0]!, port: parts[1]! };
  if (parts.length === 3 && (parts[0] === 'http' || parts[0] === 'https' || parts[0] === '')) return { scheme: parts[0]!, name: parts[1]!, port: parts[2]! };
  throw badRequest(`invalid resource name "${id}": expected [scheme:]name[:port]`);
}

/**
 * Whether a pod's or endpoint's address may be proxied to: not unspecified, link-local (cloud metadata services live
 * there) or multicast, as the reference refuses them. Loopback is allowed here, unlike the reference, since
 * host-network pods of a one-machine cluster have it; README says so.
 */
export function proxyableAddress(ip: string): boolean {
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(ip);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return !(ip === '0.0.0.0' || (a === 169 && b === 254) || (a >= 224 && a <= 239));
  }
  const v6 = ip.toLowerCase();
  return !(v6 === '::' || v6.startsWith('fe8') || v6.startsWith('fe9') || v6.startsWith('fea') || v6.startsWith('feb') || v6.startsWith('ff'));
}

export const hostPort = (host: string, port: number | string) => `${host.includes(':') ? `[${host}]` : host}${port === '' ? '' : `:${port}`}`;

/** the agent of `nodeName` at `path` (with its query), or another port of the node when one is given */
export async function nodeTarget(req: RestRequest, nodeName: string, path: string, query?: URLSearchParams, port?: string, scheme = 'https'): Promise<ConnectTarget> {
  const client = req.services.nodeClient;
  if (!client) throw serviceUnavailable('this server is not configured to reach node agents');
  const node = await req.resource('', 'nodes')!.store.get('', nodeName) as Stored<Node>;
  const addresses = node.status?.addresses ?? [];
  const address = client.preferredAddressTypes.map(t => addresses.find(a => a.type === t)).find(Boolean);
  if (!address) throw serviceUnavailable(`no preferred addresses found; known addresses: [${addresses.map(a => `{${a.type} ${a.address}}`).join(' ')}]`);
  const agentPort = port || String(node.status?.daemonEndpoints?.kubeletEndpoint?.Port || defaultAgentPort);
  const search = query && [...query.keys()].length ? `?${query}` : '';
  return {
    url: new URL(`${scheme}://${hostPort(address.address, agentPort)}${path}${search}`),
    tls: { certPem: client.certPem, keyPem: client.keyPem, caPem: client.caPem, rejectUnauthorized: !!client.caPem },
    timeoutMs: client.timeoutMs,
  };
}

/** nodes/<name>/proxy/<path>: the node's agent (or another port of the node), the path and query passed on */
export async function connectNode(req: RestRequest, path: string): Promise<ConnectTarget> {
  const { scheme, name, port } = splitSchemeNamePort(req.name);
  return nodeTarget(req, name, path || '/', req.query, port, scheme || 'https');
}
