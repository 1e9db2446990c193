// The bootstrap signer: the `cluster-info` ConfigMap of the public namespace carries, for each bootstrap token
// allowed to sign (`usage-bootstrap-signing`) and not expired, a detached JWS of its `kubeconfig` under
// `jws-kubeconfig-<token id>`, so a client holding only a token can trust what it reads anonymously there.
// Signatures of tokens gone are removed. Off unless named in --controllers, as in the reference.
import { createHmac } from 'node:crypto';
import { isConflict, isNotFound } from '../client/rest-client.js';
import { startQueue } from './common.js';
import type { Controller } from './context.js';
import { bootstrapToken, bootstrapTokenType, expired } from './bootstrap-tokens.js';
import type { ConfigMap } from './types.js';

export const clusterInfoName = 'cluster-info';
const signaturePrefix = 'jws-kubeconfig-';

const base64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/**
 * A compact JWS (HS256, keyed with the whole token `<id>.<secret>`, `kid` the token id) with its payload left
 * out: `<header>..<signature>`. The header is written with its keys in order, as the reference's signer does,
 * so the same content and token always give the same string (verifiers compare strings).
 */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', `${tokenId}.${tokenSecret}`).update(`${header}.${base64url(content)}`).digest();
  return `${header}..${base64url(signature)}`;
}

export const bootstrapSignerController: Controller = {
  name: 'bootstrapsigner',
  component: 'bootstrap-signer',
  serviceAccount: 'bootstrap-signer',
  start(ctx) {
    const secrets = ctx.informers.informer(ctx.refs.secrets, { fieldSelector: `type=${bootstrapTokenType(ctx)}` });
    const configMaps = ctx.informers.informer(ctx.refs.configMaps, { fieldSelector: `metadata.name=${clusterInfoName}` });
    const key = `${ctx.names.publicNamespace}/${clusterInfoName}`;
    const queue = startQueue(ctx, async () => {
      const cm = configMaps.get(key);
      const content = cm?.data?.kubeconfig;
      if (!cm || content === undefined) return;
      const wanted: Record<string, string> = {};
      let nextExpiry = Infinity;
      for (const s of secrets.list(ctx.names.systemNamespace)) {
        const token = bootstrapToken(ctx, s);
        if (!token?.signing || expired(token) || s.metadata.deletionTimestamp) continue;
        wanted[`${signaturePrefix}${token.id}`] = detachedSignature(content, token.id, token.secret);
        if (token.expiresAt !== undefined) nextExpiry = Math.min(nextExpiry, token.expiresAt);
      }
      const kept = Object.fromEntries(Object.entries(cm.data ?? {}).filter(([k]) => !k.startsWith(signaturePrefix)));
      const data = { ...kept, ...wanted };
      const requeue = nextExpiry === Infinity ? undefined : { requeueAfterMs: Math.max(10, Math.min(nextExpiry - Date.now() + 10, 24 * 3_600_000)) };
      if (JSON.stringify(Object.entries(data).sort()) === JSON.stringify(Object.entries(cm.data ?? {}).sort())) return requeue;
      await ctx.client.resource(ctx.refs.configMaps, ctx.names.publicNamespace).update({ ...cm, data } as ConfigMap)
        .catch((e) => { if (!isConflict(e) && !isNotFound(e)) throw e; });
      return requeue;
    });
    const changed = () => queue.add(key);
    secrets.addHandler({ added: changed, updated: changed, deleted: changed });
    configMaps.addHandler({ added: changed, updated: changed });
  },
};
