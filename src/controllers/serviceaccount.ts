// The service-account controller: every namespace that is not being deleted has a `default` service
// account, created when the namespace appears and again if someone deletes it.
import { isAlreadyExists, isNotFound } from '../client/rest-client.js';
import { startQueue } from './common.js';
import type { Controller } from './context.js';

const accountName = 'default';

export const serviceAccountController: Controller = {
  name: 'serviceaccount',
  component: 'service-account-controller',
  start(ctx) {
    const namespaces = ctx.informers.informer(ctx.refs.namespaces);
    const accounts = ctx.informers.informer(ctx.refs.serviceAccounts);
    const queue = startQueue(ctx, async (namespace) => {
      const ns = namespaces.get(namespace);
      if (!ns || ns.metadata.deletionTimestamp || accounts.get(`${namespace}/${accountName}`)) return;
      await ctx.client.resource(ctx.refs.serviceAccounts, namespace)
        .create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: accountName, namespace } })
        .catch((e) => {
          // created meanwhile, or the namespace went or is going away: nothing to do
          if (!isAlreadyExists(e) && !isNotFound(e) && (e as { code?: number }).code !== 403) throw e;
        });
    });
    namespaces.addHandler({ added: (ns) => queue.add(ns.metadata.name!), updated: (_, ns) => queue.add(ns.metadata.name!) });
    accounts.addHandler({ deleted: (sa) => { if (sa.metadata.name === accountName) queue.add(sa.metadata.namespace!); } });
    // ready once every namespace known at start has its account
    const ready = ctx.synced.then(async () => {
      const deadline = Date.now() + 30_000;
      while (!ctx.signal.aborted && Date.now() < deadline
        && namespaces.list().some((ns) => !ns.metadata.deletionTimestamp && !accounts.get(`${ns.metadata.name}/${accountName}`))) {
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    return { ready };
  },
};
