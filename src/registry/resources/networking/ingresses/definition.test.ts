import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/meta.js';
import type { Ingress } from '../../../../api/types/networking-v1.js';
import { create, ctx, strategyOf, update } from '../../testing/strategy.js';

const svc = (port: object = { number: 80 }, name = 'web') => ({ service: { name, port } });
const rule = (paths: object[], host?: string) => ({ ...(host ? { host } : {}), http: { paths } });

test('Ingress causes as the reference words and places them', async () => {
  const ing = strategyOf('networking', 'ingresses');
  const causes = async (spec: object) => (await create<Ingress>(ing, { spec })).causes;
  assert.deepEqual(await causes({}), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
  assert.deepEqual(await causes({ rules: [rule([{ path: '/', pathType: 'Prefix', backend: svc() }], '10.1.2.3'), rule([], 'a.*.example.com')] }), [
    'spec.rules[0].host: Invalid value: "10.1.2.3": must be a DNS name, not an IP address',
    'spec.rules[1].host: Invalid value: "a.*.example.com": a wildcard DNS-1123 subdomain must start with \'*.\', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, \'-\' or \'.\' and end with an alphanumeric character (e.g. \'*.example.com\', regex used for validation is \'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.rules[1].http.paths: Required value',
  ]);
  // a path without a type: nothing else of it is checked
  assert.deepEqual(await causes({ rules: [rule([{ path: 'x', backend: {} }])] }), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  assert.deepEqual(await causes({ rules: [rule([
    { path: '/a//b/..', pathType: 'Prefix', backend: svc({ number: 80, name: 'http' }) },
    { path: '/a', pathType: 'Exact', backend: svc({}) },
    { path: '/b', pathType: 'Exact', backend: { ...svc(), resource: { kind: 'Bucket', name: 'b' } } },
    { path: '/c', pathType: 'ImplementationSpecific', backend: svc({ name: 'HTTP' }, '1web') },
    { path: '/d', pathType: 'Prefix', backend: { resource: { kind: '', name: 'a/b' } } },
  ])] }), [
    'spec.rules[0].http.paths[0].path: Invalid value: "/a//b/..": must not contain \'//\'',
    'spec.rules[0].http.paths[0].path: Invalid value: "/a//b/..": cannot end with \'/..\'',
    'spec.rules[0].http.paths[0].backend: Invalid value: "": cannot set both port name & port number',
    'spec.rules[0].http.paths[1].backend: Required value: port name or number is required',
    'spec.rules[0].http.paths[2].backend: Invalid value: "": cannot set both resource and service backends',
    'spec.rules[0].http.paths[3].backend.service.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    'spec.rules[0].http.paths[3].backend.service.port.name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    'spec.rules[0].http.paths[3].backend.service.port.name: Invalid value: "HTTP": must contain at least one letter (a-z)',
    'spec.rules[0].http.paths[4].backend.resource.kind: Required value: kind is required',
    'spec.rules[0].http.paths[4].backend.resource.name: Invalid value: "a/b": may not contain \'/\'',
  ]);
  assert.deepEqual(await causes({ defaultBackend: svc(), tls: [{ hosts: ['*.example.com', 'a*.example.com'], secretName: 'Bad_Secret' }] }), [
    'spec.tls[0].hosts[1]: Invalid value: "a*.example.com": a wildcard DNS-1123 subdomain must start with \'*.\', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, \'-\' or \'.\' and end with an alphanumeric character (e.g. \'*.example.com\', regex used for validation is \'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.tls[0].secretName: Invalid value: "Bad_Secret": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
  ]);
});

test('an Ingress stored with a secret name the reference no longer accepts keeps it through updates', async () => {
  const ing = strategyOf('networking', 'ingresses');
  const old = (await create<Ingress>(ing, { spec: { defaultBackend: svc(), tls: [{ secretName: 'Old_Name' }] } })).obj;
  assert.deepEqual(await update<Ingress>(ing, old, o => { o.metadata.labels = { a: 'b' }; }), []);
});

test('a new Ingress whose class annotation and ingressClassName differ is refused, as the reference refuses it', async () => {
  const ing = strategyOf('networking', 'ingresses');
  const annotation = `${ctx.names.labelDomain}/ingress.class`;
  const withClass = (annotated: string, ingressClassName?: string) =>
    create<Ingress>(ing, { metadata: { name: 'x', namespace: 'ns', annotations: { [annotation]: annotated } }, spec: { defaultBackend: svc(), ingressClassName } });
  assert.deepEqual((await withClass('nginx', 'haproxy')).causes,
    [`annotations.${annotation}: Invalid value: "nginx": must match \`ingressClassName\` when both are specified`]);
  assert.deepEqual((await withClass('nginx', 'nginx')).causes, []);
  assert.deepEqual((await withClass('nginx')).causes, []);
  // an update is not held to it: objects stored before the rule keep working
  const old = (await withClass('nginx', 'nginx')).obj;
  assert.deepEqual(await update<Ingress>(ing, old, o => { o.spec!.ingressClassName = 'haproxy'; }), []);
});

test('a new Ingress with the class annotation is warned that it is deprecated; an update is not', () => {
  const ing = strategyOf('networking', 'ingresses');
  const annotation = `${ctx.names.labelDomain}/ingress.class`;
  const obj: ApiObject = { apiVersion: 'networking/v1', kind: 'Ingress', metadata: { name: 'x', namespace: 'ns', annotations: { [annotation]: 'nginx' } }, spec: { defaultBackend: svc() } };
  assert.deepEqual(ing.warnings?.(obj, undefined, ctx), [`annotation "${annotation}" is deprecated, please use 'spec.ingressClassName' instead`]);
  assert.deepEqual(ing.warnings?.(obj, obj, ctx), []);
  assert.deepEqual(ing.warnings?.({ ...obj, metadata: { name: 'x' } }, undefined, ctx), []);
});
