// convert: objects of the versions spec 9 lists as removed, rewritten in the versions that replaced them (the
// field changes of the table: Ingress backends, CRD per-version schemas, the review objects' spec.groups, the
// selectors and defaults of the workload kinds), locally. An old version's defaults are written out where the new
// version's defaults differ, so the converted object behaves as the old one did.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { apiDomains, defaultApiDomain, naming, type Naming } from '../../api/naming.js';
import { CliError, type Cli } from '../cli.js';
import { fileOptions } from '../flags.js';
import { readManifests } from '../manifests.js';
import { parseOutput, printObjects } from '../printers/output.js';

type Obj = Record<string, any>;

interface Rule {
  kinds: string[];
  from: string[];
  to: string;
  change?: (o: Obj, from: string, names: Naming) => void;
}

const maxInt32 = 2147483647;

/** a selector from the pod template's labels, as the old versions defaulted it */
function selectorFromTemplate(o: Obj) {
  o.spec ??= {};
  if (!o.spec.selector && o.spec.template?.metadata?.labels) o.spec.selector = { matchLabels: { ...o.spec.template.metadata.labels } };
  if (!o.spec.selector) throw new CliError(`${o.kind} ${o.metadata?.name}: spec.selector is required in the new version and the pod template has no labels to take it from`);
}

function ingressBackend(b: Obj | undefined): Obj | undefined {
  if (!b) return b;
  if (b.resource) return { resource: b.resource };
  const port = b.servicePort;
  return { service: { name: b.serviceName, port: typeof port === 'number' || /^\d+$/.test(String(port)) ? { number: Number(port) } : { name: port } } };
}

export function rules(names: Naming): Rule[] {
  const g = (base: string) => names.group(base);
  const same = (kinds: string[], group: string, from = 'v1beta1', to = 'v1'): Rule => ({ kinds, from: [`${group}/${from}`], to: `${group}/${to}` });
  return [
    {
      kinds: ['CustomResourceDefinition'], from: [`${g('apiextensions')}/v1beta1`], to: `${g('apiextensions')}/v1`,
      change(o) {
        const s = o.spec ?? (o.spec = {});
        s.scope ??= 'Namespaced';
        if (!s.versions?.length) s.versions = [{ name: s.version, served: true, storage: true }];
        const validation = s.validation?.openAPIV3Schema;
        const columns = s.additionalPrinterColumns?.map(({ JSONPath, ...c }: Obj) => ({ ...c, jsonPath: JSONPath }));
        for (const v of s.versions) {
          v.schema ??= (validation ? { openAPIV3Schema: structuredClone(validation) } : { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
          if (v.schema?.openAPIV3Schema && s.preserveUnknownFields === true) v.schema.openAPIV3Schema['x-kubernetes-preserve-unknown-fields'] = true;
          if (s.subresources && !v.subresources) v.subresources = structuredClone(s.subresources);
          if (columns && !v.additionalPrinterColumns) v.additionalPrinterColumns = structuredClone(columns);
          if (v.additionalPrinterColumns) v.additionalPrinterColumns = v.additionalPrinterColumns.map(({ JSONPath, ...c }: Obj) => ({ ...c, jsonPath: c.jsonPath ?? JSONPath }));
        }
        if (s.conversion?.webhookClientConfig || s.conversion?.conversionReviewVersions) {
          const { webhookClientConfig, conversionReviewVersions, ...rest } = s.conversion;
          s.conversion = { ...rest, webhook: { clientConfig: webhookClientConfig, conversionReviewVersions: conversionReviewVersions ?? ['v1beta1'] } };
        }
        delete s.version; delete s.validation; delete s.subresources; delete s.additionalPrinterColumns; delete s.preserveUnknownFields;
      },
    },
    same(['APIService'], g('apiregistration')),
    same(['TokenReview'], g('authentication')),
    {
      kinds: ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SubjectAccessReview', 'SelfSubjectRulesReview'], from: [`${g('authorization')}/v1beta1`], to: `${g('authorization')}/v1`,
      change(o) {
        if (o.spec && 'group' in o.spec) { o.spec.groups = o.spec.group; delete o.spec.group; }
      },
    },
    {
      kinds: ['CertificateSigningRequest'], from: [`${g('certificates')}/v1beta1`], to: `${g('certificates')}/v1`,
      change(o, _from, n) {
        o.spec ??= {};
        o.spec.signerName ??= n.label('legacy-unknown');
        o.spec.usages ??= ['digital signature', 'key encipherment'];
      },
    },
    same(['Lease'], g('coordination')),
    {
      kinds: ['Ingress'], from: ['extensions/v1beta1', `${g('networking')}/v1beta1`], to: `${g('networking')}/v1`,
      change(o) {
        const s = o.spec ?? (o.spec = {});
        if (s.backend) { s.defaultBackend = ingressBackend(s.backend); delete s.backend; }
        for (const rule of s.rules ?? []) for (const p of rule.http?.paths ?? []) {
          p.backend = ingressBackend(p.backend);
          p.pathType ??= 'ImplementationSpecific';
        }
      },
    },
    same(['IngressClass'], g('networking')),
    same(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'], g('rbac.authorization')),
    same(['PriorityClass'], g('scheduling')),
    same(['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'], g('storage')),
    { kinds: ['NetworkPolicy'], from: ['extensions/v1beta1'], to: `${g('networking')}/v1` },
    {
      kinds: ['DaemonSet'], from: ['extensions/v1beta1', 'apps/v1beta2'], to: 'apps/v1',
      change(o, from) {
        selectorFromTemplate(o);
        delete o.spec.templateGeneration;
        o.spec.updateStrategy ??= from === 'extensions/v1beta1' ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } };
      },
    },
    {
      kinds: ['Deployment'], from: ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'], to: 'apps/v1',
      change(o, from) {
        selectorFromTemplate(o);
        delete o.spec.rollbackTo;
        const old = from === 'extensions/v1beta1';
        o.spec.progressDeadlineSeconds ??= old ? maxInt32 : 600;
        o.spec.revisionHistoryLimit ??= old ? maxInt32 : from === 'apps/v1beta1' ? 2 : 10;
        o.spec.strategy ??= { type: 'RollingUpdate' };
        if ((o.spec.strategy.type ?? 'RollingUpdate') === 'RollingUpdate') {
          o.spec.strategy.type = 'RollingUpdate';
          o.spec.strategy.rollingUpdate = { maxUnavailable: old ? 1 : '25%', maxSurge: old ? 1 : '25%', ...(o.spec.strategy.rollingUpdate ?? {}) };
        }
      },
    },
    {
      kinds: ['StatefulSet'], from: ['apps/v1beta1', 'apps/v1beta2'], to: 'apps/v1',
      change(o, from) {
        selectorFromTemplate(o);
        o.spec.updateStrategy ??= from === 'apps/v1beta1' ? { type: 'OnDelete' } : { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
      },
    },
    { kinds: ['ReplicaSet'], from: ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2'], to: 'apps/v1', change: (o) => selectorFromTemplate(o) },
    { kinds: ['PodSecurityPolicy'], from: ['extensions/v1beta1'], to: 'policy/v1beta1' },
  ];
}

/** an object in the version its kind moved to, or unchanged when it is there already */
export function convertObject(obj: ApiObject, names: Naming, outputVersion?: string): ApiObject {
  const rule = rules(names).find((r) => r.kinds.includes(obj.kind!) && (r.from.includes(obj.apiVersion!) || r.to === obj.apiVersion));
  if (!rule) {
    if (!outputVersion || outputVersion === obj.apiVersion) return obj;
    throw new CliError(`${obj.kind} ${obj.metadata?.name}: no conversion from ${obj.apiVersion} to ${outputVersion} is known`);
  }
  if (outputVersion && outputVersion !== rule.to && outputVersion !== obj.apiVersion) {
    throw new CliError(`${obj.kind} ${obj.metadata?.name}: ${obj.apiVersion} converts to ${rule.to}, not ${outputVersion}`);
  }
  if (obj.apiVersion === rule.to || outputVersion === obj.apiVersion) return obj;
  const out = structuredClone(obj) as Obj;
  rule.change?.(out, obj.apiVersion!, names);
  out.apiVersion = rule.to;
  return out as ApiObject;
}

/** the domain named by the objects' or the requested groups; else the server's, else the default */
async function domainOf(cli: Cli, versions: string[]): Promise<Naming> {
  for (const v of versions) {
    const group = v.split('/')[0] ?? '';
    const domain = apiDomains.find((d) => group.endsWith(`.${d}`));
    if (domain) return naming(domain);
  }
  try {
    return await cli.names();
  } catch {
    return naming(defaultApiDomain);
  }
}

export function convertCommand(cli: Cli): Command {
  return fileOptions(new Command('convert'), 'the objects to convert')
    .description('Convert objects of removed API versions to the versions that replaced them')
    .option('--output-version <group/version>', 'the version to convert to (default: the one that replaced the object\'s)')
    .option('-o, --output <format>', 'yaml (default) or json', 'yaml')
    .option('--local [bool]', 'convert without the server (always the case)', true)
    .action(async (f: { filename?: string[]; recursive?: boolean; outputVersion?: string; output: string }) => {
      if (!f.filename?.length) throw new CliError('name the objects to convert with -f');
      const output = parseOutput(f.output, ['json', 'yaml', 'name', 'jsonpath', 'custom-columns']);
      const manifests = await readManifests(cli, f.filename, f.recursive);
      const names = await domainOf(cli, [...(f.outputVersion ? [f.outputVersion] : []), ...manifests.map((m) => m.object.apiVersion!)]);
      const converted = manifests.map((m) => convertObject(m.object, names, f.outputVersion));
      await printObjects(cli, converted, output, { single: converted.length === 1 });
    });
}
