import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IngressClass } from '../../../../api/types/networking-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';

const spec = (controller: string, parameters?: object) => ({ spec: { controller, ...(parameters ? { parameters } : {}) } });

test('IngressClass: the controller is a domain-prefixed path, as the reference checks it', async () => {
  const ic = strategyOf('networking', 'ingressclasses');
  const causes = async (controller: string) => (await create<IngressClass>(ic, spec(controller))).causes;
  assert.deepEqual(await causes('example.com/ingress-controller'), []);
  assert.deepEqual(await causes(''), ['spec.controller: Required value']);
  assert.deepEqual(await causes('nginx'), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(await causes('example.com/'), ['spec.controller: Invalid value: "example.com/": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(await causes('Example.com/a b'), [
    'spec.controller: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.controller: Invalid value: "a b": Invalid path (regex used for validation is \'[A-Za-z0-9/\\-._~%!$&\'()*+,;=:]+\')',
  ]);
  const old = (await create<IngressClass>(ic, spec('example.com/a'))).obj;
  assert.deepEqual(await update<IngressClass>(ic, old, o => { o.spec!.controller = 'example.com/b'; }),
    ['spec.controller: Invalid value: "example.com/b": field is immutable']);
});

test('IngressClass parameters: scope defaults to Cluster; a Namespace scope needs a namespace, a Cluster scope has none', async () => {
  const ic = strategyOf('networking', 'ingressclasses');
  const made = await create<IngressClass>(ic, spec('example.com/a', { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' }));
  assert.deepEqual([made.obj.spec?.parameters?.scope, made.causes], ['Cluster', []]);
  const causes = async (parameters: object) => (await create<IngressClass>(ic, spec('example.com/a', parameters))).causes;
  assert.deepEqual(await causes({ kind: 'Params', name: 'p', scope: 'Namespace', namespace: 'team-a' }), []);
  assert.deepEqual(await causes({ kind: '', name: '', apiGroup: 'Bad Group' }), [
    'spec.parameters.apiGroup: Invalid value: "Bad Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    'spec.parameters.kind: Required value: kind is required',
    'spec.parameters.name: Required value: name is required',
  ]);
  assert.deepEqual(await causes({ kind: 'Params', name: 'a/b', scope: 'Namespace' }), [
    'spec.parameters.name: Invalid value: "a/b": may not contain \'/\'',
    "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'",
  ]);
  assert.deepEqual(await causes({ kind: 'Params', name: 'p', scope: 'Cluster', namespace: 'team-a' }),
    ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]);
  assert.deepEqual(await causes({ kind: 'Params', name: 'p', scope: 'Node' }),
    ['spec.parameters.scope: Unsupported value: "Node": supported values: "Cluster", "Namespace"']);
  assert.deepEqual(await causes({ kind: 'Params', name: 'p', scope: 'Namespace', namespace: 'Team_A' }), [
    'spec.parameters.namespace: Invalid value: "Team_A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
  ]);
});
