// Authentication and authorization delegated to the API server, as extension API servers do them. The
// request-header settings come from the ConfigMap the API server publishes in its system namespace
// (`extension-apiserver-authentication`): a client certificate that chains to the request-header CA (and has an
// allowed name) is the front proxy, and the user is the one its headers name; a certificate of the cluster's
// client CA names the user itself; a bearer token is checked with a TokenReview. Every request is then
// authorized with a SubjectAccessReview. Both answers are cached briefly.
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import { startInformer } from '../client/informer.js';
import { pemBlocksOfType } from '../util/pem.js';
import { ttlCache } from '../util/webhook-client.js';

export interface RequestUser { username: string; uid?: string; groups: string[]; extra: Record<string, string[]> }

/** what a request asks to do, in SubjectAccessReview terms */
export type Attributes =
  | { verb: string; group: string; version: string; resource: string; namespace?: string; name?: string }
  | { verb: string; path: string };

export interface DelegatedAuth {
  /** resolves once the published authentication settings were read */
  synced: Promise<void>;
  /** the user a request comes from, or undefined when it proves none */
  authenticate(req: IncomingMessage): Promise<RequestUser | undefined>;
  authorize(user: RequestUser, attrs: Attributes): Promise<{ allowed: boolean; reason: string }>;
  stop(): void;
}

export const authenticationConfigMap = 'extension-apiserver-authentication';

interface Settings {
  requestHeaderCAs: X509Certificate[];
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraPrefixes: string[];
  clientCAs: X509Certificate[];
}

const cacheMs = 10_000;

/** the certificates of a PEM bundle; a malformed one is left out */
function bundle(pem: string | undefined): X509Certificate[] {
  const blocks = pem ? pemBlocksOfType(pem, 'CERTIFICATE') : [];
  return blocks.flatMap((b) => { try { return [new X509Certificate(b)]; } catch { return []; } });
}

const jsonList = (s: string | undefined): string[] => {
  try { const v = JSON.parse(s ?? '[]'); return Array.isArray(v) ? v.map(String) : []; } catch { return []; }
};

function settingsOf(data: Record<string, string> = {}): Settings {
  return {
    requestHeaderCAs: bundle(data['requestheader-client-ca-file']),
    allowedNames: jsonList(data['requestheader-allowed-names']),
    usernameHeaders: jsonList(data['requestheader-username-headers']).map((h) => h.toLowerCase()),
    groupHeaders: jsonList(data['requestheader-group-headers']).map((h) => h.toLowerCase()),
    extraPrefixes: jsonList(data['requestheader-extra-headers-prefix']).map((h) => h.toLowerCase()),
    clientCAs: bundle(data['client-ca-file']),
  };
}

const signedBy = (cert: X509Certificate, cas: X509Certificate[]) => cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
const subjectField = (cert: X509Certificate, field: string) =>
  cert.subject.split('\n').filter((l) => l.startsWith(`${field}=`)).map((l) => l.slice(field.length + 1));
const headerValues = (req: IncomingMessage, name: string) =>
  ([] as string[]).concat(req.headers[name] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);

export function delegatedAuth(client: Client, names: Naming): DelegatedAuth {
  let settings = settingsOf();
  const informer = startInformer(
    client.resource<{ data?: Record<string, string>; metadata: { name: string } }>({ group: '', version: 'v1', resource: 'configmaps' }, names.systemNamespace),
    () => { settings = settingsOf(informer.store.get(`${names.systemNamespace}/${authenticationConfigMap}`)?.data); },
    { fieldSelector: `metadata.name=${authenticationConfigMap}` },
  );
  // bounded: every distinct token or request a client sends makes an entry
  const tokens = ttlCache<RequestUser | null>();
  const decisions = ttlCache<{ allowed: boolean; reason: string }>();

  function fromProxy(req: IncomingMessage, s: Settings): RequestUser | undefined {
    const username = s.usernameHeaders.map((h) => headerValues(req, h)[0]).find(Boolean);
    if (!username) return undefined;
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      const prefix = s.extraPrefixes.find((p) => k.startsWith(p));
      if (prefix && v !== undefined) extra[decodeURIComponent(k.slice(prefix.length))] = ([] as string[]).concat(v);
    }
    return { username, groups: s.groupHeaders.flatMap((h) => headerValues(req, h)), extra };
  }

  async function fromToken(token: string): Promise<RequestUser | undefined> {
    const cached = tokens.get(token);
    if (cached !== undefined) return cached ?? undefined;
    const group = names.group('authentication');
    const review = await client.request({
      method: 'POST', path: `/apis/${group}/v1/tokenreviews`, body: { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } },
    });
    const u = review?.status?.authenticated ? review.status.user : undefined;
    const user = u ? { username: u.username, uid: u.uid, groups: u.groups ?? [], extra: u.extra ?? {} } : undefined;
    tokens.set(token, user ?? null, cacheMs);
    return user;
  }

  return {
    synced: informer.synced,
    async authenticate(req) {
      const s = settings;
      const peer = (req.socket as TLSSocket).getPeerX509Certificate?.();
      if (peer) {
        if (signedBy(peer, s.requestHeaderCAs) && (!s.allowedNames.length || s.allowedNames.includes(subjectField(peer, 'CN')[0] ?? ''))) {
          const user = fromProxy(req, s);
          if (user) return user;
        }
        if (signedBy(peer, s.clientCAs)) {
          const cn = subjectField(peer, 'CN')[0];
          if (cn) return { username: cn, groups: [...subjectField(peer, 'O'), 'system:authenticated'], extra: {} };
        }
      }
      const auth = req.headers.authorization;
      if (auth?.startsWith('Bearer ')) return fromToken(auth.slice(7).trim());
      return undefined;
    },
    async authorize(user, attrs) {
      const key = JSON.stringify([user, attrs]);
      const cached = decisions.get(key);
      if (cached) return cached;
      const group = names.group('authorization');
      const spec = {
        user: user.username, uid: user.uid, groups: user.groups, extra: user.extra,
        ...('path' in attrs ? { nonResourceAttributes: attrs } : { resourceAttributes: attrs }),
      };
      const review = await client.request({
        method: 'POST', path: `/apis/${group}/v1/subjectaccessreviews`, body: { apiVersion: `${group}/v1`, kind: 'SubjectAccessReview', spec },
      });
      const decision = { allowed: !!review?.status?.allowed, reason: String(review?.status?.reason ?? '') };
      decisions.set(key, decision, cacheMs);
      return decision;
    },
    stop: () => informer.stop(),
  };
}
