// The generators of `create`: each a small declaration (its arguments and flags, and the object it builds).
// Groups and versions come from the server's discovery, so the objects are right in either API domain.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import type { Naming } from '../../api/naming.js';
import type { Discovery } from '../../client/discovery.js';
import { CliError, type Cli } from '../cli.js';
import { collect } from '../flags.js';
import { apiVersionOf } from '../objects.js';
import { lookup } from '../resources.js';
import { sortKeys } from '../printers/objects.js';

export interface GeneratorContext {
  args: string[];
  flags: Record<string, any>;
  d: Discovery;
  names: Naming;
  namespace: string;
  cli: Cli;
}

export interface Generator {
  name: string;
  aliases?: string[];
  description: string;
  define(c: Command): void;
  build(ctx: GeneratorContext): ApiObject | Promise<ApiObject>;
}

/** the preferred group version of a resource, as `apiVersion` */
const versionOf = (d: Discovery, resource: string) => apiVersionOf(lookup(d, resource));

const nameArg = (ctx: GeneratorContext, what: string): string => {
  const name = ctx.args[0];
  if (!name) throw new CliError(`a name is required for the ${what}`);
  return name;
};

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });

/** `--from-literal`, `--from-file` and `--from-env-file`, as ConfigMap and Secret generators read them */
function sourceData(flags: Record<string, any>): Record<string, string | Buffer> {
  const data: Record<string, string | Buffer> = {};
  const put = (key: string, value: string | Buffer) => {
    if (!/^[-._a-zA-Z0-9]+$/.test(key)) throw new CliError(`"${key}" is not a valid key name: use letters, digits, '-', '_' or '.'`);
    if (key in data) throw new CliError(`cannot add key ${key}: another key by that name already exists`);
    data[key] = value;
  };
  for (const lit of flags.fromLiteral ?? []) {
    const eq = lit.indexOf('=');
    if (eq <= 0) throw new CliError(`invalid literal source ${lit}: expected key=value`);
    put(lit.slice(0, eq), lit.slice(eq + 1));
  }
  for (const spec of flags.fromFile ?? []) {
    const eq = spec.indexOf('=');
    const [key, path] = eq > 0 ? [spec.slice(0, eq), spec.slice(eq + 1)] : [basename(spec), spec];
    put(key, readFileSync(path));
  }
  for (const path of flags.fromEnvFile ?? []) {
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const text = line.trim();
      if (!text || text.startsWith('#')) continue;
      const eq = text.indexOf('=');
      if (eq <= 0) throw new CliError(`${path}: "${text}" is not a KEY=VALUE line`);
      put(text.slice(0, eq), text.slice(eq + 1));
    }
  }
  return data;
}

const sourceOptions = (c: Command) => c
  .argument('<name>')
  .option('--from-literal <key=value>', 'a key and its value; repeatable', collect)
  .option('--from-file <[key=]path>', 'a file (its name is the key unless one is given); repeatable', collect)
  .option('--from-env-file <path>', 'KEY=VALUE lines of a file; repeatable', collect)
  .option('--append-hash', 'append a hash of the content to the name');

function appendHash(obj: ApiObject, flags: Record<string, any>): ApiObject {
  if (!flags.appendHash) return obj;
  // what is hashed: kind, name, data (binaryData when there is any, type for Secrets) as JSON with sorted keys
  const fields: Record<string, unknown> = obj.kind === 'Secret'
    ? { data: obj.data ?? null, kind: 'Secret', name: obj.metadata.name, type: obj.type ?? '' }
    : { ...(obj.binaryData ? { binaryData: obj.binaryData } : {}), data: obj.data ?? null, kind: 'ConfigMap', name: obj.metadata.name };
  const h = createHash('sha256').update(JSON.stringify(sortKeys(fields))).digest('hex');
  // the reference encodes ten hex characters into letters and digits that avoid vowels
  const encoded = [...h.slice(0, 10)].map((ch) => ({ 0: 'g', 1: 'h', 3: 'k', a: 'm', e: 't' } as Record<string, string>)[ch] ?? ch).join('');
  return { ...obj, metadata: { ...obj.metadata, name: `${obj.metadata.name}-${encoded}` } };
}

/** `--image=nginx:1.25` → container name `nginx` */
const containerName = (image: string) => basename(image.split('@')[0]!.replace(/:[^/:]*$/, '')).replace(/[^a-z0-9-]/gi, '-').toLowerCase();

/** `--resource=deployments.apps`: the rule's group and resource as the server names them */
function ruleResource(d: Discovery, spec: string): { group: string; resource: string } {
  const [res, ...sub] = spec.split('/');
  const info = d.find(res!);
  if (!info) throw new CliError(`the server doesn't have a resource type "${res}"`);
  return { group: info.group, resource: sub.length ? `${info.resource}/${sub.join('/')}` : info.resource };
}

function policyRules(d: Discovery, flags: Record<string, any>): unknown[] {
  const verbs: string[] = (flags.verb ?? []).flatMap((v: string) => v.split(',')).filter(Boolean);
  const resources: string[] = (flags.resource ?? []).flatMap((v: string) => v.split(',')).filter(Boolean);
  const names: string[] = (flags.resourceName ?? []).flatMap((v: string) => v.split(',')).filter(Boolean);
  const urls: string[] = (flags.nonResourceUrl ?? []).flatMap((v: string) => v.split(',')).filter(Boolean);
  if (!verbs.length) throw new CliError('at least one --verb is required');
  if (!resources.length && !urls.length) throw new CliError('at least one --resource (or --non-resource-url) is required');
  const byGroup = new Map<string, string[]>();
  for (const r of resources.map((s) => ruleResource(d, s))) byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), r.resource]);
  const rules: unknown[] = [...byGroup].map(([group, res]) => ({ verbs, apiGroups: [group], resources: res, ...(names.length ? { resourceNames: names } : {}) }));
  if (urls.length) rules.push({ verbs, nonResourceURLs: urls });
  return rules;
}

function subjects(flags: Record<string, any>, names: Naming): unknown[] {
  const rbac = names.group('rbac.authorization');
  return [
    ...(flags.user ?? []).map((u: string) => ({ kind: 'User', apiGroup: rbac, name: u })),
    ...(flags.group ?? []).map((g: string) => ({ kind: 'Group', apiGroup: rbac, name: g })),
    ...(flags.serviceaccount ?? []).map((s: string) => {
      const [ns, name] = s.split(':');
      if (!ns || !name) throw new CliError(`--serviceaccount must be <namespace>:<name>, not "${s}"`);
      return { kind: 'ServiceAccount', namespace: ns, name };
    }),
  ];
}

const roleOptions = (c: Command) => c.argument('<name>')
  .option('--verb <verbs>', 'verbs the rule allows; repeatable or comma-separated', collect)
  .option('--resource <resources>', 'resources the rule applies to, e.g. pods or deployments.apps; repeatable', collect)
  .option('--resource-name <names>', 'only these object names; repeatable', collect);

const bindingOptions = (c: Command) => c.argument('<name>')
  .option('--user <name>', 'a user to bind; repeatable', collect)
  .option('--group <name>', 'a group to bind; repeatable', collect)
  .option('--serviceaccount <namespace:name>', 'a service account to bind; repeatable', collect);

/** `--tcp=80:8080` → ports */
function servicePorts(flags: Record<string, any>): unknown[] {
  return (flags.tcp ?? []).flatMap((v: string) => v.split(',')).map((spec: string) => {
    const [port, target] = spec.split(':');
    const n = Number(port);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new CliError(`--tcp: "${spec}" is not port[:targetPort]`);
    const targetPort = target === undefined ? n : /^\d+$/.test(target) ? Number(target) : target;
    return { name: `${port}-${target ?? port}`, protocol: 'TCP', port: n, targetPort, ...(flags.nodePort ? { nodePort: Number(flags.nodePort) } : {}) };
  });
}

const service = (type: string, build: (name: string, flags: Record<string, any>) => Record<string, unknown>): Generator => ({
  name: `service ${type}`, description: `Create a ${type} service`,
  define: (c) => c.argument('<name>').option('--tcp <port:targetPort>', 'a port; repeatable', collect).option('--node-port <port>', 'the node port (nodeport only)').option('--external-name <name>', 'the external name (externalname only)').option('--clusterip <ip>', 'the cluster IP; None for a headless service'),
  build: (ctx) => {
    const name = nameArg(ctx, 'service');
    return { apiVersion: 'v1', kind: 'Service', metadata: meta(name, { labels: { app: name } }), spec: build(name, ctx.flags), status: { loadBalancer: {} } };
  },
});

export const generators: Generator[] = [
  {
    name: 'configmap', aliases: ['cm'], description: 'Create a ConfigMap from literals, files or env files',
    define: sourceOptions,
    build(ctx) {
      const data = sourceData(ctx.flags);
      const text: Record<string, string> = {};
      const binary: Record<string, string> = {};
      for (const [k, v] of Object.entries(data)) {
        const s = Buffer.isBuffer(v) ? v.toString('utf8') : v;
        if (Buffer.isBuffer(v) && !Buffer.from(s, 'utf8').equals(v)) binary[k] = v.toString('base64');
        else text[k] = s;
      }
      return appendHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(nameArg(ctx, 'ConfigMap')), ...(Object.keys(text).length ? { data: text } : {}), ...(Object.keys(binary).length ? { binaryData: binary } : {}) }, ctx.flags);
    },
  },
  {
    name: 'secret generic', description: 'Create an Opaque (or --type) Secret from literals, files or env files',
    define: (c) => sourceOptions(c).option('--type <type>', 'the Secret type'),
    build(ctx) {
      const data = Object.fromEntries(Object.entries(sourceData(ctx.flags)).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
      return appendHash({ apiVersion: 'v1', kind: 'Secret', metadata: meta(nameArg(ctx, 'Secret')), ...(ctx.flags.type ? { type: ctx.flags.type } : {}), data }, ctx.flags);
    },
  },
  {
    name: 'secret tls', description: 'Create a TLS Secret from a certificate and key file',
    define: (c) => c.argument('<name>').requiredOption('--cert <file>', 'PEM certificate').requiredOption('--key <file>', 'PEM private key').option('--append-hash', 'append a hash of the content to the name'),
    build(ctx) {
      const cert = readFileSync(ctx.flags.cert);
      const key = readFileSync(ctx.flags.key);
      return appendHash({ apiVersion: 'v1', kind: 'Secret', metadata: meta(nameArg(ctx, 'Secret')), type: ctx.names.label('tls'), data: { 'tls.crt': cert.toString('base64'), 'tls.key': key.toString('base64') } }, ctx.flags);
    },
  },
  {
    name: 'secret docker-registry', description: 'Create a Secret with registry credentials',
    define: (c) => c.argument('<name>').option('--docker-server <server>', 'the registry', 'https://index.docker.io/v1/').requiredOption('--docker-username <user>', 'user name').requiredOption('--docker-password <password>', 'password').option('--docker-email <email>', 'e-mail address').option('--append-hash', 'append a hash of the content to the name'),
    build(ctx) {
      const f = ctx.flags;
      const auth = Buffer.from(`${f.dockerUsername}:${f.dockerPassword}`).toString('base64');
      const config = { auths: { [f.dockerServer]: { username: f.dockerUsername, password: f.dockerPassword, ...(f.dockerEmail ? { email: f.dockerEmail } : {}), auth } } };
      return appendHash({ apiVersion: 'v1', kind: 'Secret', metadata: meta(nameArg(ctx, 'Secret')), type: ctx.names.label('dockerconfigjson'), data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') } }, ctx.flags);
    },
  },
  {
    name: 'namespace', aliases: ['ns'], description: 'Create a namespace',
    define: (c) => c.argument('<name>'),
    build: (ctx) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(nameArg(ctx, 'namespace')), spec: {}, status: {} }),
  },
  {
    name: 'serviceaccount', aliases: ['sa'], description: 'Create a service account',
    define: (c) => c.argument('<name>'),
    build: (ctx) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(nameArg(ctx, 'service account')) }),
  },
  {
    name: 'deployment', aliases: ['deploy'], description: 'Create a deployment running the given images',
    define: (c) => c.argument('<name>').argument('[command...]').option('--image <image>', 'a container image; repeatable', collect).option('-r, --replicas <n>', 'number of replicas', '1').option('--port <port>', 'the port the container exposes'),
    build(ctx) {
      const name = nameArg(ctx, 'deployment');
      const images: string[] = ctx.flags.image ?? [];
      if (!images.length) throw new CliError('at least one --image is required');
      const command = ctx.args.slice(1);
      const containers = images.map((image) => ({
        name: containerName(image), image, resources: {},
        ...(command.length ? { command } : {}),
        ...(ctx.flags.port ? { ports: [{ containerPort: Number(ctx.flags.port) }] } : {}),
      }));
      const labels = { app: name };
      return {
        apiVersion: versionOf(ctx.d, 'deployments.apps'), kind: 'Deployment', metadata: meta(name, { labels }),
        spec: { replicas: Number(ctx.flags.replicas), selector: { matchLabels: labels }, strategy: {}, template: { metadata: { creationTimestamp: null, labels }, spec: { containers } } },
        status: {},
      };
    },
  },
  {
    name: 'job', description: 'Create a job running an image, or a job from a cron job (--from=cronjob/NAME)',
    define: (c) => c.argument('<name>').argument('[command...]').option('--image <image>', 'the container image').option('--from <cronjob/name>', 'copy the job template of this cron job'),
    async build(ctx) {
      const name = nameArg(ctx, 'job');
      const batch = versionOf(ctx.d, 'jobs.batch');
      if (ctx.flags.from) {
        const [kind, cron] = String(ctx.flags.from).split('/');
        if (!/^(cronjob|cronjobs|cj)(\.batch)?$/.test(kind ?? '') || !cron) throw new CliError('--from must be cronjob/NAME');
        const info = lookup(ctx.d, 'cronjobs.batch');
        const source = await (await ctx.cli.client()).resource(info, ctx.namespace).get(cron);
        const annotations = { ...(source.spec.jobTemplate.metadata?.annotations ?? {}), [`cronjob.${ctx.names.labelDomain}/instantiate`]: 'manual' };
        return {
          apiVersion: batch, kind: 'Job',
          metadata: meta(name, { annotations, labels: source.spec.jobTemplate.metadata?.labels, ownerReferences: [{ apiVersion: apiVersionOf(info), kind: 'CronJob', name: cron, uid: source.metadata.uid, controller: true }] }),
          spec: source.spec.jobTemplate.spec,
        };
      }
      if (!ctx.flags.image) throw new CliError('--image is required (or --from=cronjob/NAME)');
      const command = ctx.args.slice(1);
      return {
        apiVersion: batch, kind: 'Job', metadata: meta(name),
        spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name, image: ctx.flags.image, resources: {}, ...(command.length ? { command } : {}) }], restartPolicy: 'Never' } } },
        status: {},
      };
    },
  },
  {
    name: 'cronjob', aliases: ['cj'], description: 'Create a cron job running an image on a schedule',
    define: (c) => c.argument('<name>').argument('[command...]').requiredOption('--image <image>', 'the container image').requiredOption('--schedule <cron>', 'the schedule in cron format').option('--restart <policy>', 'OnFailure or Never', 'OnFailure'),
    build(ctx) {
      const name = nameArg(ctx, 'cron job');
      const command = ctx.args.slice(1);
      return {
        apiVersion: versionOf(ctx.d, 'cronjobs.batch'), kind: 'CronJob', metadata: meta(name),
        spec: {
          schedule: ctx.flags.schedule,
          jobTemplate: { metadata: { creationTimestamp: null, name }, spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name, image: ctx.flags.image, resources: {}, ...(command.length ? { command } : {}) }], restartPolicy: ctx.flags.restart } } } },
        },
        status: {},
      };
    },
  },
  {
    name: 'role', description: 'Create a role with one rule per API group',
    define: roleOptions,
    build: (ctx) => ({ apiVersion: versionOf(ctx.d, `roles.${ctx.names.group('rbac.authorization')}`), kind: 'Role', metadata: meta(nameArg(ctx, 'role')), rules: policyRules(ctx.d, ctx.flags) }),
  },
  {
    name: 'clusterrole', description: 'Create a cluster role',
    define: (c) => roleOptions(c).option('--non-resource-url <url>', 'a non-resource URL the rule allows; repeatable', collect).option('--aggregation-rule <key=value>', 'aggregate the roles with these labels'),
    build(ctx) {
      const name = nameArg(ctx, 'cluster role');
      const apiVersion = versionOf(ctx.d, `clusterroles.${ctx.names.group('rbac.authorization')}`);
      if (ctx.flags.aggregationRule) {
        const matchLabels = Object.fromEntries(String(ctx.flags.aggregationRule).split(',').map((kv) => kv.split('=')));
        return { apiVersion, kind: 'ClusterRole', metadata: meta(name), aggregationRule: { clusterRoleSelectors: [{ matchLabels }] } };
      }
      return { apiVersion, kind: 'ClusterRole', metadata: meta(name), rules: policyRules(ctx.d, ctx.flags) };
    },
  },
  {
    name: 'rolebinding', description: 'Create a role binding for a role or cluster role',
    define: (c) => bindingOptions(c).option('--role <name>', 'the role to bind').option('--clusterrole <name>', 'the cluster role to bind'),
    build(ctx) {
      const f = ctx.flags;
      if (!!f.role === !!f.clusterrole) throw new CliError('exactly one of --role or --clusterrole is required');
      const rbac = ctx.names.group('rbac.authorization');
      return {
        apiVersion: versionOf(ctx.d, `rolebindings.${rbac}`), kind: 'RoleBinding', metadata: meta(nameArg(ctx, 'role binding')),
        roleRef: { apiGroup: rbac, kind: f.role ? 'Role' : 'ClusterRole', name: f.role ?? f.clusterrole }, subjects: subjects(f, ctx.names),
      };
    },
  },
  {
    name: 'clusterrolebinding', description: 'Create a cluster role binding for a cluster role',
    define: (c) => bindingOptions(c).requiredOption('--clusterrole <name>', 'the cluster role to bind'),
    build(ctx) {
      const rbac = ctx.names.group('rbac.authorization');
      return {
        apiVersion: versionOf(ctx.d, `clusterrolebindings.${rbac}`), kind: 'ClusterRoleBinding', metadata: meta(nameArg(ctx, 'cluster role binding')),
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: ctx.flags.clusterrole }, subjects: subjects(ctx.flags, ctx.names),
      };
    },
  },
  service('clusterip', (name, f) => ({ ports: servicePorts(f), selector: { app: name }, type: 'ClusterIP', ...(f.clusterip ? { clusterIP: f.clusterip } : {}) })),
  service('nodeport', (name, f) => ({ ports: servicePorts(f), selector: { app: name }, type: 'NodePort' })),
  service('loadbalancer', (name, f) => ({ ports: servicePorts(f), selector: { app: name }, type: 'LoadBalancer' })),
  service('externalname', (name, f) => {
    if (!f.externalName) throw new CliError('--external-name is required');
    return { type: 'ExternalName', externalName: f.externalName, selector: { app: name }, ...(f.tcp ? { ports: servicePorts(f) } : {}) };
  }),
  {
    name: 'quota', aliases: ['resourcequota'], description: 'Create a resource quota',
    define: (c) => c.argument('<name>').option('--hard <resource=quantity,...>', 'the hard limits').option('--scopes <scopes>', 'comma-separated quota scopes'),
    build(ctx) {
      const hard = ctx.flags.hard ? Object.fromEntries(String(ctx.flags.hard).split(',').map((kv) => {
        const [k, v] = kv.split('=');
        if (!k || v === undefined) throw new CliError(`--hard: "${kv}" is not resource=quantity`);
        return [k, v];
      })) : undefined;
      const scopes = ctx.flags.scopes ? String(ctx.flags.scopes).split(',') : undefined;
      return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta(nameArg(ctx, 'quota')), spec: { ...(hard ? { hard } : {}), ...(scopes ? { scopes } : {}) }, status: {} };
    },
  },
  {
    name: 'priorityclass', aliases: ['pc'], description: 'Create a priority class',
    define: (c) => c.argument('<name>').option('--value <n>', 'the priority', '0').option('--global-default', 'use it for pods without a priority class').option('--description <text>', 'a description').option('--preemption-policy <policy>', 'PreemptLowerPriority or Never', 'PreemptLowerPriority'),
    build: (ctx) => ({
      apiVersion: versionOf(ctx.d, `priorityclasses.${ctx.names.group('scheduling')}`), kind: 'PriorityClass', metadata: meta(nameArg(ctx, 'priority class')),
      value: Number(ctx.flags.value), ...(ctx.flags.globalDefault ? { globalDefault: true } : {}), description: ctx.flags.description ?? '', preemptionPolicy: ctx.flags.preemptionPolicy,
    }),
  },
  {
    name: 'poddisruptionbudget', aliases: ['pdb'], description: 'Create a pod disruption budget',
    define: (c) => c.argument('<name>').requiredOption('--selector <selector>', 'label selector of the pods').option('--min-available <n|%>', 'pods that must stay available').option('--max-unavailable <n|%>', 'pods that may be unavailable'),
    build(ctx) {
      const f = ctx.flags;
      if (!!f.minAvailable === !!f.maxUnavailable) throw new CliError('exactly one of --min-available or --max-unavailable is required');
      const amount = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);
      const matchLabels = Object.fromEntries(String(f.selector).split(',').map((kv) => kv.split('=')));
      return {
        apiVersion: versionOf(ctx.d, 'poddisruptionbudgets.policy'), kind: 'PodDisruptionBudget', metadata: meta(nameArg(ctx, 'pod disruption budget')),
        spec: { ...(f.minAvailable ? { minAvailable: amount(f.minAvailable) } : { maxUnavailable: amount(f.maxUnavailable) }), selector: { matchLabels } },
        status: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 },
      };
    },
  },
  {
    name: 'ingress', aliases: ['ing'], description: 'Create an ingress with host/path rules',
    define: (c) => c.argument('<name>').option('--rule <host/path=service:port[,tls[=secret]]>', 'a rule; repeatable', collect).option('--class <name>', 'the ingress class').option('--default-backend <service:port>', 'the backend for requests no rule matches').option('--annotation <key=value>', 'an annotation; repeatable', collect),
    build(ctx) {
      const f = ctx.flags;
      const backend = (spec: string) => {
        const [svc, port] = spec.split(':');
        if (!svc || !port) throw new CliError(`"${spec}" is not service:port`);
        return { service: { name: svc, port: /^\d+$/.test(port) ? { number: Number(port) } : { name: port } } };
      };
      const rules = new Map<string, unknown[]>();
      const tls: { hosts: string[]; secretName?: string }[] = [];
      for (const r of f.rule ?? []) {
        const m = /^([^/]*)(\/[^=]*)=([^,]+)(?:,tls(?:=(.+))?)?$/.exec(r);
        if (!m) throw new CliError(`--rule "${r}" is not host/path=service:port[,tls[=secret]]`);
        const [, host, path, target, secret] = m;
        const pathType = path!.endsWith('*') ? 'Prefix' : 'Exact';
        rules.set(host!, [...(rules.get(host!) ?? []), { path: path!.replace(/\*$/, ''), pathType, backend: backend(target!) }]);
        if (r.includes(',tls')) tls.push({ hosts: host ? [host] : [], ...(secret ? { secretName: secret } : {}) });
      }
      const annotations = f.annotation ? Object.fromEntries((f.annotation as string[]).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)])) : undefined;
      return {
        apiVersion: versionOf(ctx.d, `ingresses.${ctx.names.group('networking')}`), kind: 'Ingress', metadata: meta(nameArg(ctx, 'ingress'), annotations ? { annotations } : {}),
        spec: {
          ...(f.class ? { ingressClassName: f.class } : {}),
          ...(f.defaultBackend ? { defaultBackend: backend(f.defaultBackend) } : {}),
          ...(rules.size ? { rules: [...rules].map(([host, paths]) => ({ ...(host ? { host } : {}), http: { paths } })) } : {}),
          ...(tls.length ? { tls } : {}),
        },
        status: { loadBalancer: {} },
      };
    },
  },
];

