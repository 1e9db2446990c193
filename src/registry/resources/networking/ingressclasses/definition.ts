// networking/v1 ingress classes: which controller serves an ingress.
import type { Stored } from '../../../../api/meta.js';
import type { IngressClass, IngressClassParametersReference } from '../../../../api/types/networking-v1.js';
import * as s from '../../../../api/schemas/networking-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, dnsLabel, dnsSubdomain, forbidden, immutable, invalid, isSet, notSupported, required } from '../../../validation/fields.js';
import { nameProblems } from '../../../validation/object-meta.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const maxControllerBytes = 250;
const scopes = ['Cluster', 'Namespace'];
/** the characters of an HTTP path (RFC 3986), as the reference checks the part of a domain-prefixed path after its domain */
const httpPath = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPath}$`);

/** a domain-prefixed path such as "acme.io/foo": a DNS subdomain, a slash, then HTTP path characters */
function domainPrefixedPath(at: string, v: string): Causes {
  if (!v) return [required(at)];
  const slash = v.indexOf('/');
  const host = v.slice(0, slash), path = v.slice(slash + 1);
  if (slash <= 0 || !path) return [invalid(at, v, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const out = dnsSubdomain(at, host);
  if (!httpPathRe.test(path)) out.push(invalid(at, path, `Invalid path (regex used for validation is '${httpPath}')`));
  return out;
}

/** the controller's parameters: an object by group, kind and name, cluster-scoped unless it names its namespace */
function parametersCauses(p: IngressClassParametersReference): Causes {
  const at = 'spec.parameters';
  const out: Causes = [];
  if (isSet(p.apiGroup)) out.push(...dnsSubdomain(`${at}.apiGroup`, p.apiGroup));
  for (const field of ['kind', 'name'] as const) {
    const v = p[field];
    if (!v) out.push(required(`${at}.${field}`, `${field} is required`));
    else out.push(...nameProblems(v, 'path-segment').map(problem => invalid(`${at}.${field}`, v, problem)));
  }
  if (!isSet(p.scope)) return [...out, required(`${at}.scope`)];
  if (!scopes.includes(p.scope)) out.push(notSupported(`${at}.scope`, p.scope, scopes));
  else if (p.scope === 'Namespace') {
    if (!isSet(p.namespace)) out.push(required(`${at}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else out.push(...dnsLabel(`${at}.namespace`, p.namespace));
  } else if (isSet(p.namespace)) out.push(forbidden(`${at}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return out;
}

function validateIngressClass(ic: IngressClass): Causes {
  const c = String(ic.spec?.controller ?? '');
  const out: Causes = [];
  if (c.length > maxControllerBytes) out.push({ reason: 'FieldValueTooLong', field: 'spec.controller', message: `Too long: must have at most ${maxControllerBytes} bytes` });
  out.push(...domainPrefixedPath('spec.controller', c));
  if (ic.spec?.parameters) out.push(...parametersCauses(ic.spec.parameters));
  return out;
}

export const strategy = defineStrategy<Stored<IngressClass>>({
  // parameters name a cluster-scoped object unless they say otherwise
  defaults: ic => { if (ic.spec?.parameters && typeof ic.spec.parameters === 'object') fill(ic.spec.parameters, { scope: 'Cluster' }); },
  validate: validateIngressClass,
  validateUpdate: (ic, old) => [...immutable('spec.controller', ic.spec?.controller, old.spec?.controller), ...validateIngressClass(ic)],
});

const columns: TableColumn<IngressClass>[] = [
  column('Controller', 'string', o => o.spec?.controller ?? '', 'Controller that implements the ingress class.'),
  column('Parameters', 'string', o => {
    const p = o.spec?.parameters;
    return p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
  }, 'Configuration for the controller.'),
  age,
];

export const definition = define<IngressClass>({
  group: 'networking', domainGroup: true, resource: 'ingressclasses', kind: 'IngressClass', namespaced: false,
  versions: only('v1', s.ingressClass), strategy, columns,
});
