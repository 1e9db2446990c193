// The service-account token controller: a Secret of type `<domain>/service-account-token` naming an account in
// its `<domain>/service-account.name` annotation is filled with a token of that account (signed with
// --service-account-private-key-file, the API server's own key inside its process), the cluster CA and the
// namespace, and marked with the account's uid; when the account goes (or is replaced by one of the same name),
// its token Secrets are deleted, and the tokens in them stop authenticating. As in the reference since 1.24,
// no Secret is made for an account unasked.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { isConflict, isNotFound } from '../client/rest-client.js';
import { ignoreNotFound, keyOf, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Secret, ServiceAccount } from './types.js';

function algorithm(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
}

/** a legacy token: no expiry, no audience, naming the Secret that holds it */
async function legacyToken(ctx: ControllerContext, key: KeyObject, secret: Secret, account: ServiceAccount): Promise<string> {
  const jose = await import('jose');
  const claim = (n: string) => `${ctx.names.labelDomain}/serviceaccount/${n}`;
  const namespace = secret.metadata.namespace!;
  return new jose.SignJWT({
    [claim('namespace')]: namespace, [claim('secret.name')]: secret.metadata.name,
    [claim('service-account.name')]: account.metadata.name, [claim('service-account.uid')]: account.metadata.uid,
  }).setProtectedHeader({ alg: algorithm(key) }).setIssuer(`${ctx.names.vendor}/serviceaccount`)
    .setSubject(`system:serviceaccount:${namespace}:${account.metadata.name}`).sign(key);
}

export const serviceAccountTokenController: Controller = {
  name: 'serviceaccount-token',
  component: 'tokens-controller',
  // as in the reference: it writes the tokens of every account, so it cannot wait for one of its own
  serviceAccount: null,
  start(ctx) {
    if (!ctx.settings.serviceAccountKeyPem) { ctx.log.info('serviceaccount-token: no signing key (--service-account-private-key-file); not started'); return; }
    const key = createPrivateKey(ctx.settings.serviceAccountKeyPem);
    const type = `${ctx.names.labelDomain}/service-account-token`;
    const nameKey = `${ctx.names.labelDomain}/service-account.name`;
    const uidKey = `${ctx.names.labelDomain}/service-account.uid`;
    const secrets = ctx.informers.informer(ctx.refs.secrets, { fieldSelector: `type=${type}` });
    const accounts = ctx.informers.informer(ctx.refs.serviceAccounts);
    secrets.addIndex('account', (s) => (s.metadata.annotations?.[nameKey] ? [`${s.metadata.namespace}/${s.metadata.annotations[nameKey]}`] : []));

    const queue = startQueue(ctx, async (k) => {
      const secret = secrets.get(k);
      if (!secret || secret.metadata.deletionTimestamp) return;
      const [namespace, name] = splitKey(k);
      const client = ctx.client.resource(ctx.refs.secrets, namespace);
      const accountName = secret.metadata.annotations?.[nameKey];
      let account = accountName ? accounts.get(`${namespace}/${accountName}`) : undefined;
      // the cache may not show an account made a moment ago: ask before deleting
      if (accountName && !account) account = await ctx.client.resource(ctx.refs.serviceAccounts, namespace).get(accountName).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
      const wantedUid = secret.metadata.annotations?.[uidKey];
      if (!account || (wantedUid && wantedUid !== account.metadata.uid)) {
        await client.delete(name, { preconditions: { uid: secret.metadata.uid } }).catch(ignoreNotFound);
        return;
      }
      const data = secret.data ?? {};
      const caPem = ctx.settings.rootCaPem ?? '';
      const b64 = (v: string) => Buffer.from(v).toString('base64');
      if (data.token && data['ca.crt'] === b64(caPem) && data.namespace === b64(namespace) && wantedUid) return;
      const token = data.token ? Buffer.from(data.token, 'base64').toString('utf8') : await legacyToken(ctx, key, secret, account);
      await client.update({
        ...secret,
        metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [uidKey]: account.metadata.uid! } },
        data: { ...data, token: b64(token), 'ca.crt': b64(caPem), namespace: b64(namespace) },
      }).catch((e) => { if (isConflict(e)) queue.addAfter(k, 100); else ignoreNotFound(e); });
    });
    secrets.addHandler({ added: (s) => queue.add(keyOf(s)), updated: (_, s) => queue.add(keyOf(s)) });
    accounts.addHandler({
      deleted: (sa) => { for (const s of secrets.byIndex('account', keyOf(sa))) queue.add(keyOf(s)); },
      updated: (_, sa) => { for (const s of secrets.byIndex('account', keyOf(sa))) queue.add(keyOf(s)); },
    });
  },
};
