// Authentication and authorization assembled from the server's options: the authenticators in the reference's
// order, the authorizers in --authorization-mode order, the RBAC escalation check, service-account token
// signing, and (with RBAC or Node) the default roles and bindings, created at start-up when absent.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { abacAuthorizer, parseAbacPolicies } from '../authz/abac.js';
import { join } from 'node:path';
import { files as pkiFiles } from '../pki/pki.js';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { ApiServerOptions } from '../config/apiserver-options.js';
import type { ApiResources } from '../registry/resources.js';
import type { Backends } from '../registry/backends.js';
import { noAdmission } from '../registry/store.js';
import type { WatchCache } from '../watch/cache.js';
import type { Authenticator } from '../authn/types.js';
import { unionAuthenticator } from '../authn/union.js';
import { certificatesIn, clientCertificateAuthenticator, x509Authenticator } from '../authn/x509.js';
import { tokenFileAuthenticator } from '../authn/token-file.js';
import { bootstrapTokenAuthenticator } from '../authn/bootstrap-token.js';
import { defaultIssuer, serviceAccountTokens, type ServiceAccountTokens } from '../authn/service-account.js';
import { legacyTokenUseRecorder } from './legacy-token-tracking.js';
import { oidcAuthenticator } from '../authn/oidc.js';
import { tokenWebhookAuthenticator } from '../authn/token-webhook.js';
import { requestHeaderAuthenticator } from '../authn/request-header.js';
import { webhookClient } from '../util/webhook-client.js';
import { alwaysAllow, alwaysDeny, unionAuthorizer } from '../authz/types.js';
import { rbacAuthorizer, type RbacAuthorizer } from '../authz/rbac/authorizer.js';
import { escalationCheck } from '../authz/rbac/escalation.js';
import { aggregatedRules, clusterRolesFromCache, startAggregation, type ClusterRoleSource } from '../authz/rbac/aggregation.js';
import type { LabelSelectorObject } from '../api/selectors.js';
import { nodeAuthorizer } from '../authz/node.js';
import { webhookAuthorizer } from '../authz/webhook.js';
import { bootstrapPolicy, nodeRules } from '../registry/bootstrap/rbac.js';
import { reconciledDefault } from './rbac-reconcile.js';
import type { Authorizer, AuthnRequest, AuthnResult } from '../api/auth.js';
import type { AdmissionPlugin } from '../api/admission.js';
import { revisionOf } from '../api/resource-version.js';
import { unauthorized } from '../api/status.js';

export interface AuthDeps {
  names: Naming;
  watchCache: WatchCache;
  resources: ApiResources;
  backends: Backends;
  log: { info(m: string): void; warn(m: string): void };
}

export interface Auth {
  authenticate(req: AuthnRequest): Promise<AuthnResult>;
  authorizer: Authorizer;
  /** admission steps auth adds (RBAC escalation prevention) */
  admissionPlugins: AdmissionPlugin[];
  tokens: ServiceAccountTokens;
  apiAudiences: string[];
  /** CAs whose client certificates the TLS listener must accept besides the client CAs (the proxy's) */
  extraClientCAs: string[];
  /** after the stores exist: the default policy is written and the RBAC index is current */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Authentication for requests: why a credential was refused goes to the log, and the client is told only
 * Unauthorized, as the reference tells it (the reasons stay in TokenReviews, which call the authenticators directly).
 */
export function refusalReasonsLogged(authenticate: Auth['authenticate'], log: { info(m: string): void }): Auth['authenticate'] {
  return async (req) => {
    try {
      return await authenticate(req);
    } catch (e) {
      if ((e as { code?: number }).code !== 401 || (e as Error).message === 'Unauthorized') throw e;
      log.info(`unable to authenticate the request: ${(e as Error).message.replace(/^Unauthorized: /, '')}`);
      throw unauthorized();
    }
  };
}

/** a start-up step reading the file of a flag: a failure names the flag, so the refusal says what to fix */
function flagged<T>(flag: string, f: () => T): T {
  try {
    const v = f();
    return v instanceof Promise ? v.catch((e: Error) => { throw new Error(`${flag}: ${e.message}`); }) as T : v;
  } catch (e) {
    throw new Error(`${flag}: ${(e as Error).message}`);
  }
}

export async function setupAuth(options: ApiServerOptions, deps: AuthDeps): Promise<Auth> {
  const { names, watchCache, resources, backends } = deps;
  const { listers } = backends;
  const a = options.authentication;
  const rbacGroup = names.group('rbac.authorization');
  const issuers = a.serviceAccountIssuers.length ? a.serviceAccountIssuers : [defaultIssuer(names)];
  const apiAudiences = a.apiAudiences.length ? a.apiAudiences : [issuers[0]];
  const tokens = serviceAccountTokens(names, {
    signingKeyFile: a.serviceAccountSigningKeyFile, tlsPrivateKeyFile: options.tlsPrivateKeyFile, keyFiles: a.serviceAccountKeyFiles,
    certDir: options.certDir, issuers, apiAudiences,
  });

  // the reference's order: proxy headers, client certificates, token file, service accounts, bootstrap, OIDC, webhook
  const authenticators: Authenticator[] = [];
  const extraClientCAs: string[] = [];
  if (a.requestHeader) {
    authenticators.push(flagged('--requestheader-client-ca-file', () => requestHeaderAuthenticator(a.requestHeader!)));
    extraClientCAs.push(flagged('--requestheader-client-ca-file', () => readFileSync(a.requestHeader!.clientCaFile, 'utf8')));
  }
  if (a.requestHeader) {
    // the listener also accepts the proxy's CA, whose certificates are no user credentials by themselves
    let cas: ReturnType<typeof certificatesIn> | undefined;
    authenticators.push(clientCertificateAuthenticator(() => (cas ??= certificatesIn([
      readFileSync(join(options.certDir, pkiFiles.caCert), 'utf8'), ...(options.clientCaFile ? [readFileSync(options.clientCaFile, 'utf8')] : []),
    ].join('\n')))));
  } else authenticators.push(x509Authenticator);
  if (a.tokenAuthFile) authenticators.push(flagged('--token-auth-file', () => tokenFileAuthenticator(a.tokenAuthFile!)));
  // legacy tokens' uses are recorded on their Secrets (LegacyServiceAccountTokenTracking); the lookup reads the Secret
  const recordUse = options.featureGates.LegacyServiceAccountTokenTracking && a.serviceAccountLookup
    ? legacyTokenUseRecorder(backends, names) : undefined;
  authenticators.push(tokens.authenticator(a.serviceAccountLookup
    ? (resource, ns, name) => listers.get('', resource, ns, name) : undefined, recordUse));
  if (a.enableBootstrapTokenAuth) authenticators.push(bootstrapTokenAuthenticator(names, (ns, name) => listers.get('', 'secrets', ns, name)));
  const oidc = a.oidc ? oidcAuthenticator(a.oidc, undefined, { warn: m => deps.log.warn(m) }) : undefined;
  if (oidc) authenticators.push(oidc);
  if (a.tokenWebhook) {
    authenticators.push(tokenWebhookAuthenticator(names, {
      client: await flagged('--authentication-token-webhook-config-file', () => webhookClient(a.tokenWebhook!.configFile)), version: a.tokenWebhook.version, cacheTtlMs: a.tokenWebhook.cacheTtlMs, apiAudiences, warn: m => deps.log.warn(m),
    }));
  }
  const authenticate = unionAuthenticator(authenticators, options.anonymousAuth);

  const cacheOf = (group: string, resource: string) => {
    const info = resources.preferred(group, resource);
    if (!info) throw new Error(`the ${resource} resource must be served for this authorization mode`);
    return watchCache.cache(info.keyPrefix);
  };
  let rbac: RbacAuthorizer | undefined;
  const modes = options.authorizationModes;
  const members: Authorizer[] = [];
  for (const m of modes) {
    if (m === 'AlwaysAllow') members.push(alwaysAllow);
    else if (m === 'AlwaysDeny') members.push(alwaysDeny);
    else if (m === 'RBAC') {
      rbac = rbacAuthorizer({
        clusterRoles: cacheOf(rbacGroup, 'clusterroles'), roles: cacheOf(rbacGroup, 'roles'),
        clusterRoleBindings: cacheOf(rbacGroup, 'clusterrolebindings'), roleBindings: cacheOf(rbacGroup, 'rolebindings'), group: rbacGroup,
      });
      members.push(rbac);
    } else if (m === 'Node') {
      members.push(nodeAuthorizer({
        pods: cacheOf('', 'pods'), nodeRules: nodeRules(names), coordinationGroup: names.group('coordination'),
        storageGroup: names.group('storage'), nodeLeaseNamespace: names.nodeLeaseNamespace,
      }));
    } else if (m === 'ABAC') {
      const file = options.authorization.policyFile!;
      members.push(abacAuthorizer(parseAbacPolicies(await readFile(file, 'utf8'), names, file)));
    } else if (m === 'Webhook') {
      const w = options.authorization.webhook!;
      members.push(webhookAuthorizer(names, { client: await flagged('--authorization-webhook-config-file', () => webhookClient(w.configFile)), version: w.version, authorizedTtlMs: w.authorizedTtlMs, unauthorizedTtlMs: w.unauthorizedTtlMs }));
    } else throw new Error(`--authorization-mode=${m} is not supported by this server`);
  }
  const authorizer = unionAuthorizer(members);
  const stops: Array<() => void> = [];
  if (rbac) stops.push(() => rbac!.stop());
  // the OpenID keys are read until they are: not after the server stops
  if (oidc) stops.push(() => oidc.stop());

  return {
    authenticate, authorizer, tokens, apiAudiences, extraClientCAs,
    admissionPlugins: rbac ? [escalationCheck(rbacGroup, rbac, authorizer)] : [],
    async start() {
      // the default policy is stored whatever the authorization mode, as the reference does: switching the mode
      // later finds it there
      const policy = bootstrapPolicy(names);
      // aggregated roles start with their rules filled in (nested aggregation settles in a few rounds)
      for (let round = 0; round < 4; round++) for (const r of policy.clusterRoles) {
        const selectors = (r as { aggregationRule?: { clusterRoleSelectors?: LabelSelectorObject[] } }).aggregationRule?.clusterRoleSelectors;
        if (selectors) r.rules = aggregatedRules(policy.clusterRoles as Parameters<typeof aggregatedRules>[0], r.metadata.name!, selectors);
      }
      let lastWrite = 0;
      const autoupdate = `rbac.authorization.${names.labelDomain}/autoupdate`;
      /** each default object created, or brought back up to the default when stored already */
      const ensure = async (resource: string, objs: ApiObject[]) => {
        const backend = backends.preferred(rbacGroup, resource);
        if (!backend) return;
        const { store } = backend;
        await Promise.all(objs.map(async obj => {
          const ns = obj.metadata.namespace ?? '', name = obj.metadata.name!;
          const stored = await store.get(ns, name).catch(() => undefined);
          // one there is brought back up to the default unless its annotation says not to, as the reference does
          if (stored) {
            if (!reconciledDefault(stored, obj, autoupdate)) return;
            const { obj: updated } = await store.guaranteedUpdate(ns, name, '', cur => (cur ? reconciledDefault(cur, obj, autoupdate) ?? cur : structuredClone(obj)), noAdmission, { dryRun: false, allowCreate: true });
            lastWrite = Math.max(lastWrite, revisionOf(updated));
            return;
          }
          const written = await store.create(ns, structuredClone(obj), noAdmission, { dryRun: false })
            .catch(e => { if ((e as { code?: number }).code !== 409) throw e; return undefined; });
          lastWrite = Math.max(lastWrite, revisionOf(written));
        }));
      };
      await Promise.all([
        ensure('clusterroles', policy.clusterRoles), ensure('clusterrolebindings', policy.clusterRoleBindings),
        ensure('roles', policy.roles), ensure('rolebindings', policy.roleBindings),
      ]);
      const clusterRoles = backends.preferred(rbacGroup, 'clusterroles');
      if (!clusterRoles) return;
      let roles: ClusterRoleSource;
      if (rbac) {
        await rbac.ready;
        // decisions right after start-up see the default policy
        if (lastWrite) await watchCache.waitFor(lastWrite, 5000);
        roles = rbac;
      } else {
        const fromCache = clusterRolesFromCache(cacheOf(rbacGroup, 'clusterroles'));
        stops.push(() => fromCache.stop());
        roles = fromCache;
      }
      const aggregation = startAggregation({
        roles, log: deps.log,
        async writeRules(name, rules) {
          await clusterRoles.store.guaranteedUpdate('', name, '', cur => {
            if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
            // no matching rules leave the field out, as the reference's controller applies none (not an empty list)
            if (rules.length) return { ...cur, rules };
            const { rules: _gone, ...rest } = cur as ApiObject & { rules?: unknown };
            return rest;
          }, noAdmission, { dryRun: false });
        },
      });
      stops.push(() => aggregation.stop());
    },
    stop() { for (const s of stops.splice(0)) s(); },
  };
}
