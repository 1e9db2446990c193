// The agent's certificates, as the reference agent gets and keeps them, each kept with its key in --cert-dir
// (`<name>-<time>.pem`, and `<name>-current.pem` pointing at the newest).
// - The client certificate: with --bootstrap-kubeconfig and no usable --clusterconfig, the agent asks for one with
//   the bootstrap credentials (a token): a CertificateSigningRequest to the `<domain>/kube-apiserver-client-kubelet`
//   signer for `system:node:<name>` in `system:nodes`, which the csrapproving controller (or an administrator)
//   approves and the signer signs; --clusterconfig is then written to use it (`agent-client`). The request is named
//   from a digest of its key and content (`node-csr-...`), and the key waits in --cert-dir, so an agent restarted
//   before the approval waits for the same request, as the reference's does.
// - With --rotate-server-certificates, the serving certificate: asked for from the `<domain>/kubelet-serving` signer
//   for the node's name and addresses; an administrator approves it (`agent-server`). Until one is signed the
//   agent's server completes no TLS handshake, as the reference's.
// Each is asked for again, with the node's own identity, once 70 to 84 % (jittered) of its life has passed
// (--rotate-certificates for the client one), and the agent switches to the new one.
import { X509Certificate, createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { access, chmod, mkdir, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Naming } from '../api/naming.js';
import { createClient, isAlreadyExists, isNotFound, resourcePath, type Client } from '../client/rest-client.js';
import type { Credential, CredentialSource } from '../client/exec-credential.js';
import { loadClientConfig, type ClientConfig } from '../config/client-config.js';
import { createCertificateRequest, generateKeyPair, readCertificateRequest } from '../pki/pki.js';

export interface Logger { info(message: string): void; warn(message: string): void }

export interface KeyPair { certPem: string; keyPem: string }

const keyBlock = /(?:EC |RSA )?PRIVATE KEY/;
const pemBlocks = (pem: string, what: RegExp) => pem.match(new RegExp(`-----BEGIN ${what.source}-----[\\s\\S]+?-----END ${what.source}-----\\n?`, 'g')) ?? [];

/** a certificate and its key from one PEM text (or two), or undefined when they do not belong together */
export function readKeyPair(certText: string, keyText = certText): KeyPair | undefined {
  const certPem = pemBlocks(certText, /CERTIFICATE/).join('');
  const keyPem = pemBlocks(keyText, keyBlock)[0];
  if (!certPem || !keyPem) return undefined;
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem)) ? { certPem, keyPem } : undefined;
  } catch {
    return undefined;
  }
}

const validity = (pair: KeyPair) => {
  const cert = new X509Certificate(pair.certPem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
};
const usable = (pair: KeyPair | undefined, now = Date.now()): pair is KeyPair => !!pair && validity(pair).notAfter > now;

/** when to renew: after 70 % of the certificate's life, plus up to a fifth of that again, at random (the reference's jitter) */
export function rotationDeadline(pair: KeyPair, random = Math.random()): number {
  const { notBefore, notAfter } = validity(pair);
  return notBefore + (notAfter - notBefore) * 0.7 * (1 + 0.2 * random);
}

/** the newest pair of one name kept in the certificate directory */
function pemStore(dir: string, name: string) {
  const current = join(dir, `${name}-current.pem`);
  return {
    current,
    async read(): Promise<KeyPair | undefined> {
      return readFile(current, 'utf8').then((t) => readKeyPair(t), () => undefined);
    },
    /** writes the pair to a file of its own, then points `-current` at it */
    async write(pair: KeyPair): Promise<void> {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().slice(0, 19).replace(/[T:]/g, '-');
      const file = join(dir, `${name}-${stamp}.pem`);
      await writeFile(file, `${pair.certPem}${pair.keyPem}`, { mode: 0o600 });
      const link = `${current}.tmp`;
      await unlink(link).catch(() => {});
      await symlink(file, link);
      await rename(link, current);
    },
  };
}

/** what is asked of a signer: its name after `<domain>/`, the subject and the usages */
export interface CertificateKind {
  signer: 'kube-apiserver-client-kubelet' | 'kubelet-serving';
  subject: { commonName: string; organizations: string[]; dnsNames?: string[]; ips?: string[] };
  usages: string[];
}

export const nodeClientKind = (nodeName: string): CertificateKind => ({
  signer: 'kube-apiserver-client-kubelet', subject: { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] },
  usages: ['digital signature', 'client auth'],
});

export const nodeServingKind = (nodeName: string, dnsNames: string[], ips: string[]): CertificateKind => ({
  signer: 'kubelet-serving', subject: { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'], dnsNames, ips },
  usages: ['digital signature', 'server auth'],
});

/**
 * The name the reference's node agent gives its bootstrap request: `node-csr-` and a digest of the public key, the
 * subject's common name and organizations and the usages, so that an agent restarted before its request was
 * approved (its key kept in --cert-dir) finds that request again rather than making another.
 */
export function bootstrapRequestName(keyPem: string, kind: CertificateKind): string {
  const hash = createHash('sha512-256');
  const write = (data: Buffer | string) => hash.update(Buffer.from(data).toString('base64url')).update('|');
  write(createPublicKey(keyPem).export({ type: 'spki', format: 'der' }));
  for (const part of [kind.subject.commonName, ...kind.subject.organizations, ...kind.usages]) write(part);
  return `node-csr-${hash.digest('base64url')}`;
}

/** why a request already made under the name is not one for this key, subject and signer, or undefined */
async function incompatibility(existing: any, request: string, keyPem: string, signerName: string): Promise<string | undefined> {
  const [theirs, ours] = await Promise.all([
    readCertificateRequest(Buffer.from(existing.spec?.request ?? '', 'base64').toString('utf8')).catch(() => undefined),
    readCertificateRequest(request),
  ]);
  if (!theirs) return 'its request does not parse or verify';
  if (JSON.stringify(theirs.subject) !== JSON.stringify(ours.subject)) return 'the subjects differ';
  if (existing.spec?.signerName && existing.spec.signerName !== signerName) return 'the signers differ';
  const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'der' }).toString('base64');
  return spki(theirs.publicKey) === spki(createPublicKey(keyPem)) ? undefined : 'the public keys differ';
}

/**
 * Asks the server for a certificate for `keyPem` and waits until it is signed; a request that is denied or
 * that the signer refuses ends the wait with its reason. With `name`, the request has that name, and one already
 * made under it for the same key, subject and signer is waited for instead.
 */
export async function requestCertificate(client: Client, names: Naming, kind: CertificateKind, keyPem: string, signal?: AbortSignal, name?: string): Promise<KeyPair> {
  const request = await createCertificateRequest(keyPem, kind.subject);
  const ref = { group: names.group('certificates'), version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
  const signerName = `${names.labelDomain}/${kind.signer}`;
  const csr = await client.resource(ref).create({
    apiVersion: `${ref.group}/v1`, kind: ref.kind, metadata: name ? { name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(request).toString('base64'), signerName, usages: kind.usages },
  }).catch(async (e) => {
    if (!name || !isAlreadyExists(e)) throw e;
    const existing = await client.resource(ref).get(name);
    const problem = await incompatibility(existing, request, keyPem, signerName);
    if (problem) throw new Error(`certificate request ${name} exists and is not this one: ${problem}`);
    return existing;
  });
  const made = csr.metadata.name as string;
  for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
    if (signal?.aborted) throw new Error(`stopped while waiting for the certificate of request ${made}`);
    const cur = await client.request<any>({ method: 'GET', path: resourcePath(ref, undefined, made) }).catch((e) => {
      if (isNotFound(e)) throw new Error(`certificate request ${made} was deleted before it was signed`);
      throw e;
    });
    if (cur.metadata?.uid !== csr.metadata.uid) throw new Error(`certificate request ${made} was deleted before it was signed`);
    const refused = (cur.status?.conditions ?? []).find((c: any) => (c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False');
    if (refused) throw new Error(`certificate request ${made} ${refused.type.toLowerCase()}: ${refused.reason ?? ''} ${refused.message ?? ''}`.trim());
    if (cur.status?.certificate) {
      const pair = readKeyPair(Buffer.from(cur.status.certificate, 'base64').toString('utf8'), keyPem);
      if (!pair) throw new Error(`the certificate of request ${made} does not match its key`);
      return pair;
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

export interface RotatingCertificate {
  /** the pair in use, if any yet */
  current(): KeyPair | undefined;
  stop(): void;
}

/**
 * Keeps a certificate of one kind fresh: asks for one at once when there is none, else once its renewal time
 * has come; retries with growing pauses (up to 5 minutes) when asking fails; tells `changed` of each new pair.
 * `asker` gives the client to ask with (the node's own, or the bootstrap one for a client certificate that expired).
 */
export function rotateCertificate(o: {
  label: string; names: Naming; kind: CertificateKind; store: ReturnType<typeof pemStore>; initial?: KeyPair;
  asker(current: KeyPair | undefined): Promise<{ client: Client; done(): void }>; changed?(pair: KeyPair): void; log: Logger;
}): RotatingCertificate {
  let current = o.initial;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const stopping = new AbortController();
  const schedule = (at: number) => {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => void renew(), Math.max(0, at - Date.now()));
    timer.unref();
  };
  const renew = async () => {
    try {
      const keyPem = generateKeyPair().keyPem;
      const { client, done } = await o.asker(current);
      const next = await requestCertificate(client, o.names, o.kind, keyPem, stopping.signal).finally(done);
      await o.store.write(next);
      current = next;
      failures = 0;
      o.changed?.(next);
      const at = rotationDeadline(next);
      o.log.info(`${o.label} certificate signed, valid until ${new Date(validity(next).notAfter).toISOString()}; renewal at ${new Date(at).toISOString()}`);
      schedule(at);
    } catch (e) {
      if (stopping.signal.aborted) return;
      const delay = Math.min(1000 * 2 ** failures++, 5 * 60_000);
      o.log.warn(`asking for the ${o.label} certificate: ${(e as Error).message}; again in ${Math.round(delay / 1000)} s`);
      schedule(Date.now() + delay);
    }
  };
  schedule(current ? rotationDeadline(current) : Date.now());
  return {
    current: () => current,
    stop() {
      stopping.abort();
      clearTimeout(timer);
    },
  };
}

/** a client configuration that reaches the server of `from` with the pair kept at `pemFile` */
async function writeClientConfig(path: string, from: ClientConfig, pemFile: string) {
  const doc = {
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster: {
      server: from.server,
      ...(from.caPem ? { 'certificate-authority-data': Buffer.from(from.caPem).toString('base64') } : {}),
      ...(from.tlsServerName ? { 'tls-server-name': from.tlsServerName } : {}),
      ...(from.insecureSkipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    } }],
    users: [{ name: 'default-auth', user: { 'client-certificate': pemFile, 'client-key': pemFile } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
  };
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  await chmod(`${path}.tmp`, 0o600);
  await rename(`${path}.tmp`, path);
}

export interface ClientCertificateSettings {
  names: Naming;
  nodeName: string;
  /** --clusterconfig: read when usable, written after a bootstrap */
  clusterconfig: string;
  /** --bootstrap-kubeconfig */
  bootstrapConfig?: string;
  certDir: string;
  rotate: boolean;
}

export interface ClientCertificates {
  /** the server and its CA, without a client certificate: that comes from `credentials` */
  config: ClientConfig;
  /** the current certificate and key */
  credentials: CredentialSource;
  /** with --rotate-certificates: renews the certificate before it expires, asking with `client` */
  startRotation(client: Client): void;
  stop(): void;
}

/**
 * The agent's client certificate at start: the pair in --cert-dir or in --clusterconfig while still valid,
 * else a new one got with --bootstrap-kubeconfig. Undefined when the agent has neither flag's work to do (its
 * --clusterconfig is used as it is).
 */
export async function clientCertificates(s: ClientCertificateSettings, log: Logger): Promise<ClientCertificates | undefined> {
  if (!s.bootstrapConfig && !s.rotate) return undefined;
  const store = pemStore(s.certDir, 'agent-client');
  const existing = await access(s.clusterconfig).then(() => loadClientConfig(s.clusterconfig), () => undefined);
  const fromConfig = existing?.certPem && existing.keyPem ? readKeyPair(existing.certPem, existing.keyPem) : undefined;
  let pair = [await store.read(), fromConfig].find((p) => usable(p));
  let config = existing;
  if (!pair && s.bootstrapConfig) {
    const bootstrap = await loadClientConfig(s.bootstrapConfig);
    log.info(`no valid client certificate in ${s.clusterconfig}: asking for one with the credentials of ${s.bootstrapConfig}`);
    pair = await bootstrapPair(s, bootstrap, store);
    await writeClientConfig(s.clusterconfig, bootstrap, store.current);
    config = await loadClientConfig(s.clusterconfig);
    log.info(`client certificate for system:node:${s.nodeName} signed; ${s.clusterconfig} written`);
  }
  if (!pair || !config) {
    if (s.rotate) log.warn(`--rotate-certificates: ${s.clusterconfig} has no client certificate to renew; it is used as it is`);
    return undefined;
  }

  let current: KeyPair = pair;
  let rotation: RotatingCertificate | undefined;
  const credential = (): Credential => ({ certPem: current.certPem, keyPem: current.keyPem });
  return {
    config: { ...config, certPem: undefined, keyPem: undefined },
    credentials: { get: async () => credential(), invalidate() {} },
    startRotation(client) {
      if (!s.rotate) return;
      rotation = rotateCertificate({
        label: 'client', names: s.names, kind: nodeClientKind(s.nodeName), store, initial: current, log,
        changed: (next) => { current = next; },
        // an expired certificate cannot ask for its successor: the bootstrap credentials do, when there are any
        async asker(now) {
          if (usable(now) || !s.bootstrapConfig) return { client, done() {} };
          const bootstrap = createClient(await loadClientConfig(s.bootstrapConfig));
          return { client: bootstrap, done: () => bootstrap.close() };
        },
      });
    },
    stop: () => rotation?.stop(),
  };
}

/** a first certificate, asked for with the bootstrap credentials; the key waits in --cert-dir so a restart reuses it */
async function bootstrapPair(s: ClientCertificateSettings, bootstrap: ClientConfig, store: ReturnType<typeof pemStore>): Promise<KeyPair> {
  await mkdir(s.certDir, { recursive: true, mode: 0o700 });
  const keyFile = join(s.certDir, 'agent-client.key.tmp');
  let keyPem = await readFile(keyFile, 'utf8').catch(() => undefined);
  if (!keyPem || !pemBlocks(keyPem, keyBlock).length) {
    keyPem = generateKeyPair().keyPem;
    await writeFile(keyFile, keyPem, { mode: 0o600 });
  }
  const client = createClient(bootstrap, { userAgent: `cluster-agent/${s.nodeName}` });
  try {
    const kind = nodeClientKind(s.nodeName);
    const pair = await requestCertificate(client, s.names, kind, keyPem, undefined, bootstrapRequestName(keyPem, kind));
    await store.write(pair);
    await rm(keyFile, { force: true });
    return pair;
  } finally {
    client.close();
  }
}

/**
 * With --rotate-server-certificates: the serving certificate from the kubelet-serving signer for the node's
 * name and addresses, kept in --cert-dir; `changed` puts each new one in service.
 */
export async function servingCertificate(s: { names: Naming; nodeName: string; certDir: string; dnsNames: string[]; ips: string[] }, client: Client,
  changed: (pair: KeyPair) => void, log: Logger): Promise<RotatingCertificate> {
  const store = pemStore(s.certDir, 'agent-server');
  const initial = await store.read();
  if (usable(initial)) changed(initial);
  else log.info(`no serving certificate yet: asked for one from the ${s.names.labelDomain}/kubelet-serving signer; it waits for an administrator's approval`);
  return rotateCertificate({
    label: 'serving', names: s.names, kind: nodeServingKind(s.nodeName, s.dnsNames, s.ips), store, log, changed,
    initial: usable(initial) ? initial : undefined, asker: async () => ({ client, done() {} }),
  });
}
