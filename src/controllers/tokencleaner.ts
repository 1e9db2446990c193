// The token cleaner: a bootstrap token Secret whose `expiration` has passed (or is not an RFC 3339 time) is
// deleted, at the moment it passes. Off unless named in --controllers, as in the reference.
import { ignoreNotFound, keyOf, splitKey, startQueue } from './common.js';
import type { Controller } from './context.js';
import { bootstrapTokenType, tokenExpiry } from './bootstrap-tokens.js';
import type { Secret } from './types.js';

export const tokenCleanerController: Controller = {
  name: 'tokencleaner',
  component: 'token-cleaner',
  start(ctx) {
    const secrets = ctx.informers.informer(ctx.refs.secrets, { fieldSelector: `type=${bootstrapTokenType(ctx)}` });
    const queue = startQueue(ctx, async (key) => {
      const secret = secrets.get(key);
      // any Secret of the type in the system namespace, well-formed token or not, goes by its expiration alone
      if (!secret || secret.type !== bootstrapTokenType(ctx) || secret.metadata.namespace !== ctx.names.systemNamespace || secret.metadata.deletionTimestamp) return;
      const expiresAt = tokenExpiry(secret);
      if (expiresAt === undefined) return;
      const left = expiresAt - Date.now();
      if (left > 0) return { requeueAfterMs: Math.min(left + 10, 24 * 3_600_000) };
      const [namespace, name] = splitKey(key);
      ctx.log.info(`tokencleaner: deleting expired bootstrap token ${key}`);
      await ctx.client.resource(ctx.refs.secrets, namespace).delete(name, { preconditions: { uid: secret.metadata.uid } }).catch(ignoreNotFound);
    });
    const add = (s: Secret) => { if (s.metadata.namespace === ctx.names.systemNamespace) queue.add(keyOf(s)); };
    secrets.addHandler({ added: add, updated: (_, s) => add(s) });
  },
};
