// The node's CSINode: the reference kubelet creates it when it registers its node, named as the node, owned by
// it (so the garbage collector deletes it with the node) and with no drivers until CSI drivers register.
// The scheduler's volume limits and the attach/detach controller read it.

import type { Naming } from '../api/naming.js';
import { isAlreadyExists, isConflict, isNotFound, type Client } from '../client/rest-client.js';
import type { CSINode } from '../api/types/storage-v1.js';

export const csiNodesRef = (names: Naming) => ({ group: names.group('storage'), version: 'v1', resource: 'csinodes' });

/** the in-tree volume plugins whose CSI migration is on by default in 1.27, as the reference lists them on CSINodes */
const migratedPlugins = ['aws-ebs', 'azure-disk', 'azure-file', 'cinder', 'gce-pd', 'vsphere-volume'];

export function csiNodeFor(names: Naming, node: { name: string; uid: string }): CSINode {
  return {
    apiVersion: `${names.group('storage')}/v1`,
    kind: 'CSINode',
    metadata: {
      name: node.name,
      annotations: { [`storage.alpha.${names.labelDomain}/migrated-plugins`]: migratedPlugins.map((p) => `${names.labelDomain}/${p}`).join(',') },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid }],
    },
    spec: { drivers: [] },
  };
}

/**
 * makes sure the node has its CSINode, owned by this node object: an existing one is kept; one left from an
 * earlier node of the same name (another uid, so the garbage collector is about to delete it) is replaced
 */
export async function ensureCSINode(client: Client, names: Naming, node: { name: string; uid: string }): Promise<void> {
  const csiNodes = client.resource<CSINode>(csiNodesRef(names));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await csiNodes.create(csiNodeFor(names, node));
      return;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    let existing: CSINode;
    try {
      existing = await csiNodes.get(node.name);
    } catch (e) {
      if (isNotFound(e)) continue;
      throw e;
    }
    if (existing.metadata?.ownerReferences?.some((r) => r.kind === 'Node' && r.uid === node.uid)) return;
    try {
      await csiNodes.delete(node.name, { preconditions: { uid: existing.metadata!.uid! } });
    } catch (e) {
      // gone already, or replaced meanwhile (the uid precondition failed): the next attempt sees what is there
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
  throw new Error(`the CSINode of node ${node.name} kept changing while it was being created`);
}
