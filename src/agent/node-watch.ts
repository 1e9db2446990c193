// The agent's view of its node objects, kept current by a watch, as the reference's agent admits pods against the node
// its informer holds rather than the copy its last status post returned (labels and taints change between posts).
// A process running one node watches that node alone (field selector metadata.name); one running many simulated nodes
// shares a single watch of all nodes among them, so that a thousand nodes add one watch, not a thousand.

import type { Client } from '../client/rest-client.js';
import { startInformer } from '../client/informer.js';
import { withoutManagedFields, type Node } from './objects.js';
import { nodesRef } from './node-status.js';

export interface NodeWatch {
  /** hands `handler` every version of the named node the watch sees (the last one seen at once); returns its removal */
  subscribe(nodeName: string, handler: (node: Node) => void): () => void;
  stop(): void;
}

export function watchNodes(client: Client, nodeNames: readonly string[], warn: (message: string) => void): NodeWatch {
  const own = new Set(nodeNames);
  const handlers = new Map<string, (node: Node) => void>();
  /** the last version seen of each of this process's nodes, for a node whose agent subscribes after the list */
  const latest = new Map<string, Node>();
  const deliver = (node: Node) => {
    const name = node.metadata?.name;
    if (!name || !own.has(name)) return;
    latest.set(name, node);
    handlers.get(name)?.(node);
  };
  const informer = startInformer(client.resource<Node>(nodesRef), (e) => {
    if (e.type === 'sync') for (const node of e.items) deliver(node);
    // a deleted node is registered again by its agent; until then admission keeps the last copy it saw
    else if (e.type !== 'deleted') deliver(e.object);
  }, {
    fieldSelector: nodeNames.length === 1 ? `metadata.name=${nodeNames[0]}` : undefined,
    keepStore: false,
    // other processes' nodes are dropped in deliver; only ours are worth trimming
    transform: (node: Node) => (own.has(node.metadata?.name ?? '') ? withoutManagedFields(node) : node),
    onError: (err) => warn(`node watch: ${(err as Error).message}`),
  });
  return {
    subscribe(nodeName, handler) {
      handlers.set(nodeName, handler);
      const known = latest.get(nodeName);
      if (known) handler(known);
      return () => { if (handlers.get(nodeName) === handler) handlers.delete(nodeName); };
    },
    stop: () => informer.stop(),
  };
}

/** Whether `candidate` is a later version of the node than `current`: resourceVersions (the store's revisions,
 *  which grow across all objects) compared as numbers; ones that are not numbers (another server's) leave the copy that arrived last. */
export function isNewerNode(candidate: Node, current: Node | undefined): boolean {
  if (!current) return true;
  const a = candidate.metadata?.resourceVersion ?? '';
  const b = current.metadata?.resourceVersion ?? '';
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return BigInt(a) >= BigInt(b);
}
