// The node lifecycle controller, in part: a node's not-ready taint follows its Ready condition, as the
// reference's taint-by-condition does. A node that reports Ready loses the taint it was registered with;
// one that stops being Ready gets it back; one that has never reported keeps what admission gave it.
import { nowTimestamp } from '../api/meta.js';
import { isNotFound } from '../client/rest-client.js';
import { startQueue } from './common.js';
import type { Controller } from './context.js';
import type { Node } from './types.js';

export const nodeLifecycleController: Controller = {
  name: 'nodelifecycle',
  component: 'node-controller',
  start(ctx) {
    const key = `node.${ctx.names.labelDomain}/not-ready`;
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    const ready = (n: Node) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    const reported = (n: Node) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready');
    const tainted = (n: Node) => (n.spec?.taints ?? []).some((t) => t.key === key && t.effect === 'NoSchedule');
    const wanted = (n: Node) => (ready(n) ? false : reported(n) ? true : undefined);

    const queue = startQueue(ctx, async (name) => {
      const node = nodes.get(name);
      if (!node) return;
      const want = wanted(node);
      if (want === undefined || want === tainted(node)) return;
      const others = (node.spec?.taints ?? []).filter((t) => !(t.key === key && t.effect === 'NoSchedule'));
      const taints = want ? [...others, { key, effect: 'NoSchedule', timeAdded: nowTimestamp() }] : others;
      // the resourceVersion makes it a compare-and-swap: a node changed meanwhile is looked at again
      await ctx.client.resource(ctx.refs.nodes).patch(name, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints: taints.length ? taints : null } }, 'merge')
        .catch((e) => { if (!isNotFound(e)) throw e; });
    });
    nodes.addHandler({ added: (n) => queue.add(n.metadata.name!), updated: (_, n) => queue.add(n.metadata.name!) });
  },
};
