import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/meta.js';
import type { Service } from '../../../../api/types/core-v1.js';
import { create, ctx, strategyOf, text, update } from '../../testing/strategy.js';
import { validateObjectMeta } from '../../../validation/object-meta.js';

test('Service defaults without storage: types, session affinity, traffic policies', async () => {
  const svc = strategyOf('', 'services');
  const lb = await create<Service>(svc, { spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'web' }] } });
  assert.equal(lb.obj.spec?.externalTrafficPolicy, 'Cluster');
  assert.equal(lb.obj.spec?.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(lb.obj.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  assert.equal(lb.obj.spec?.ports?.[0].targetPort, 'web');
  const local = await create(svc, { spec: { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] } });
  assert.deepEqual(local.causes, ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set when `type` is \'NodePort\' or \'LoadBalancer\'']);
  const ext = await create<Service>(svc, { spec: { type: 'ExternalName' } });
  assert.deepEqual(ext.causes, ['spec.externalName: Required value']);
  assert.equal(ext.obj.spec?.internalTrafficPolicy, undefined);
});

test('a Service changing type drops the fields the new type cannot have, unless the update changed them', async () => {
  const svc = strategyOf('', 'services');
  const nodePort = (await create<Service>(svc, { spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] } })).obj;
  assert.equal(nodePort.spec?.externalTrafficPolicy, 'Cluster');
  // kubectl patch -p '{"spec":{"type":"ClusterIP"}}': the rest of the spec comes along as it was
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => { o.spec!.type = 'ClusterIP'; }), []);
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => { o.spec!.type = 'ClusterIP'; o.spec!.externalTrafficPolicy = 'Local'; }),
    ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set when `type` is \'NodePort\' or \'LoadBalancer\'']);
  const lb = (await create<Service>(svc, { spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30100, loadBalancerClass: 'example.com/lb', ports: [{ port: 80, nodePort: 30081 }] } })).obj;
  let after: Service | undefined;
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.spec!.type = 'ClusterIP'; after = o; }), []);
  assert.deepEqual([after!.spec?.externalTrafficPolicy, after!.spec?.healthCheckNodePort, after!.spec?.allocateLoadBalancerNodePorts, after!.spec?.loadBalancerClass, after!.spec?.ports?.[0]?.nodePort],
    [undefined, undefined, undefined, undefined, undefined]);
  // an ExternalName service has no traffic of its own to route: the internal policy goes too
  const plain = (await create<Service>(svc, { spec: { ports: [{ port: 80 }] } })).obj;
  assert.equal(plain.spec?.internalTrafficPolicy, 'Cluster');
  let named: Service | undefined;
  assert.deepEqual(await update<Service>(svc, plain, (o) => { o.spec!.type = 'ExternalName'; o.spec!.externalName = 'a.example.com'; named = o; }), []);
  assert.equal(named!.spec?.internalTrafficPolicy, undefined);
});

test('a Service that stops being a load balancer loses its load balancer status, as the reference clears it', async () => {
  const svc = strategyOf('', 'services');
  const lb = (await create<Service>(svc, { spec: { type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30081 }] } })).obj;
  lb.status = { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } };
  let after: Service | undefined;
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.metadata.labels = { a: 'b' }; after = o; }), []);
  assert.deepEqual(after!.status?.loadBalancer, { ingress: [{ ip: '192.0.2.10' }] }, 'kept while it is a load balancer');
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.spec!.type = 'NodePort'; after = o; }), []);
  assert.deepEqual(after!.status?.loadBalancer, {});
});

test('allocateLoadBalancerNodePorts is for load balancers only, as the reference validates it', async () => {
  const svc = strategyOf('', 'services');
  const causes = async (spec: object) => (await create<Service>(svc, { spec })).causes;
  assert.deepEqual(await causes({ allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] }),
    ["spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
  assert.deepEqual(await causes({ type: 'NodePort', allocateLoadBalancerNodePorts: true, ports: [{ port: 80 }] }),
    ["spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
  assert.deepEqual(await causes({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] }), []);
  // a load balancer turned into a NodePort sheds the field it kept unchanged; one the update sets again is refused
  const lb = (await create<Service>(svc, { spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] } })).obj;
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.spec!.type = 'NodePort'; }), []);
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.spec!.type = 'NodePort'; o.spec!.allocateLoadBalancerNodePorts = true; }),
    ["spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'"]);
});

test('the topology-mode annotation and the deprecated topology-aware-hints one must agree when both are set', async () => {
  const svc = strategyOf('', 'services');
  const [mode, hints] = [`service.${ctx.names.labelDomain}/topology-mode`, `service.${ctx.names.labelDomain}/topology-aware-hints`];
  const causes = async (annotations: Record<string, string>) =>
    (await create<Service>(svc, { metadata: { name: 'x', namespace: 'ns', annotations }, spec: { ports: [{ port: 80 }] } })).causes;
  assert.deepEqual(await causes({ [mode]: 'Auto', [hints]: 'Disabled' }),
    [`metadata.annotations[${mode}]: Invalid value: "Auto": must match annotations[${hints}] when both are specified`]);
  assert.deepEqual(await causes({ [mode]: 'Auto', [hints]: 'Auto' }), []);
  assert.deepEqual(await causes({ [hints]: 'Auto' }), []);
  const old = (await create<Service>(svc, { metadata: { name: 'x', namespace: 'ns', annotations: { [hints]: 'Auto' } }, spec: { ports: [{ port: 80 }] } })).obj;
  assert.deepEqual(await update<Service>(svc, old, (o) => { o.metadata.annotations![mode] = 'Disabled'; }),
    [`metadata.annotations[${mode}]: Invalid value: "Disabled": must match annotations[${hints}] when both are specified`]);
});

test('a Service changing type keeps what the update changed for validation to refuse: a new node port, a new cluster IP', async () => {
  const svc = strategyOf('', 'services');
  const nodePort = (await create<Service>(svc, { spec: { type: 'NodePort', clusterIP: '10.0.0.9', ports: [{ port: 80, nodePort: 30080 }] } })).obj;
  // the node port it had goes with the type; one it names anew is refused, as the reference refuses it
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => { o.spec!.type = 'ClusterIP'; }), []);
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => { o.spec!.type = 'ClusterIP'; o.spec!.ports![0].nodePort = 30081; }),
    ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  // an ExternalName service may carry one (nothing is allocated for it), as the reference lets it
  assert.deepEqual((await create<Service>(svc, { spec: { type: 'ExternalName', externalName: 'a.example.com', ports: [{ port: 80, nodePort: 30080 }] } })).causes, []);
  // an ExternalName has no cluster IP: the one it had goes, a changed one is refused
  let after: Service | undefined;
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => { o.spec!.type = 'ExternalName'; o.spec!.externalName = 'a.example.com'; after = o; }), []);
  assert.deepEqual([after!.spec?.clusterIP, after!.spec?.clusterIPs, after!.spec?.ipFamilies, after!.spec?.ipFamilyPolicy], [undefined, undefined, undefined, undefined]);
  assert.deepEqual(await update<Service>(svc, nodePort, (o) => {
    o.spec!.type = 'ExternalName'; o.spec!.externalName = 'a.example.com'; o.spec!.clusterIP = '10.0.0.10'; o.spec!.clusterIPs = ['10.0.0.10'];
  }), ['spec.clusterIPs: Forbidden: may not be set for ExternalName services']);
});

test('a Service name is a DNS-1035 label: it starts with a letter, as the reference requires', () => {
  const svc = strategyOf('', 'services');
  const nameCauses = (name: string) => validateObjectMeta({ name, namespace: 'ns' }, true, svc.nameRule).map(c => `${c.field}: ${c.message}`);
  assert.deepEqual(nameCauses('web-1'), []);
  assert.deepEqual(nameCauses('1web'), ['metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')']);
  assert.equal(nameCauses(`a${'b'.repeat(63)}`)[0], 'metadata.name: Invalid value: "' + `a${'b'.repeat(63)}` + '": must be no more than 63 characters');
});

test('Service validation as the reference: node ports unique per protocol, no headless node ports, no addresses on an ExternalName, appProtocol a qualified name', async () => {
  const svc = strategyOf('', 'services');
  const causes = async (spec: object) => (await create<Service>(svc, { spec })).causes;
  assert.deepEqual(await causes({ type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30100 }, { name: 'b', port: 81, nodePort: 30100 }] }),
    ['spec.ports[1].nodePort: Duplicate value: 30100']);
  // one node port for the TCP and the UDP side of a port, or even of two ports, is fine
  assert.deepEqual(await causes({ type: 'NodePort', ports: [{ name: 'a', port: 53, nodePort: 30053 }, { name: 'b', port: 54, protocol: 'UDP', nodePort: 30053 }] }), []);
  assert.deepEqual(await causes({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }),
    ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services']);
  assert.deepEqual(await causes({ type: 'LoadBalancer', clusterIP: 'None', ports: [{ port: 80 }] }),
    ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for LoadBalancer services']);
  assert.deepEqual(await causes({ type: 'ExternalName', externalName: 'example.com', clusterIP: '10.0.0.9', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' }), [
    'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    'spec.ipFamilies: Forbidden: may not be set for ExternalName services',
    'spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services',
  ]);
  assert.deepEqual(await causes({ type: 'ExternalName', externalName: 'example.com' }), []);
  const [bad] = await causes({ ports: [{ port: 80, appProtocol: 'bad proto' }] });
  assert.match(bad, /^spec\.ports\[0\]\.appProtocol: Invalid value: "bad proto": name part must consist of alphanumeric characters/);
  assert.deepEqual(await causes({ ports: [{ port: 80, appProtocol: 'example.com/h2c' }] }), []);
});

test('a dual-stack Service keeps its secondary cluster IP: changing it is refused, releasing it on a downgrade is not', async () => {
  const svc = strategyOf('', 'services');
  const dual = (await create<Service>(svc, { spec: { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9', 'fd00::9'], ports: [{ port: 80 }] } })).obj;
  assert.deepEqual(await update<Service>(svc, dual, (o) => { o.spec!.clusterIPs = ['10.0.0.9', 'fd00::10']; }),
    ['spec.clusterIPs[1]: Invalid value: ["10.0.0.9","fd00::10"]: may not change once set']);
  assert.deepEqual(await update<Service>(svc, dual, (o) => { o.spec!.ipFamilyPolicy = 'SingleStack'; o.spec!.ipFamilies = ['IPv4']; o.spec!.clusterIPs = ['10.0.0.9']; }), []);
  // an update that leaves clusterIP out keeps the one allocated, as the reference does
  let kept: Service | undefined;
  assert.deepEqual(await update<Service>(svc, dual, (o) => { delete o.spec!.clusterIP; kept = o; }), []);
  assert.equal(kept!.spec?.clusterIP, '10.0.0.9');
});

test('a load balancer may not expose the node agent port, as the reference refuses', async () => {
  const svc = strategyOf('', 'services');
  assert.deepEqual((await create<Service>(svc, { spec: { type: 'LoadBalancer', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 10250 }] } })).causes,
    ['spec.ports[1]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet']);
  assert.deepEqual((await create<Service>(svc, { spec: { type: 'NodePort', ports: [{ port: 10250 }] } })).causes, []);
});

test('cluster IPs and families are validated as the reference: one address and one family of each kind, None alone', async () => {
  const svc = strategyOf('', 'services');
  const causes = async (spec: object) => (await create<Service>(svc, { spec: { ports: [{ port: 80 }], ...spec } })).causes;
  assert.deepEqual(await causes({ ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv4'] }), ['spec.ipFamilies[1]: Duplicate value: "IPv4"']);
  // clusterIPs without clusterIP: a new client gives both, an old one clusterIP alone
  assert.deepEqual(await causes({ clusterIPs: ['10.0.0.77'] }), ['spec.clusterIPs: Invalid value: ["10.0.0.77"]: must be empty when `clusterIP` is not specified']);
  assert.deepEqual(await causes({ clusterIPs: ['None'] }), ['spec.clusterIPs: Invalid value: ["None"]: must be empty when `clusterIP` is not specified']);
  assert.deepEqual(await causes({ clusterIP: '10.0.0.78' }), []);
  assert.deepEqual(await causes({ ipFamilyPolicy: 'PreferDualStack', clusterIP: '10.0.0.200', clusterIPs: ['10.0.0.200', '10.0.0.201'] }),
    ['spec.clusterIPs: Invalid value: ["10.0.0.200","10.0.0.201"]: may specify no more than one IP for each IP family']);
  assert.deepEqual(await causes({ clusterIP: 'None', clusterIPs: ['None', '10.0.0.1'] }),
    ['spec.clusterIPs: Invalid value: ["None","10.0.0.1"]: \'None\' must be the first and only value']);
  assert.deepEqual(await causes({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::1', '10.0.0.2'] }),
    ['spec.clusterIPs: Invalid value: ["10.0.0.1","fd00::1","10.0.0.2"]: may only hold up to 2 values',
      'spec.clusterIPs: Invalid value: ["10.0.0.1","fd00::1","10.0.0.2"]: may specify no more than one IP for each IP family']);
});

test('load balancer fields, external IPs and session affinity are checked and defaulted as the reference', async () => {
  const svc = strategyOf('', 'services');
  const causes = async (spec: object) => (await create<Service>(svc, { spec: { ports: [{ port: 80 }], ...spec } })).causes;
  assert.deepEqual(await causes({ type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/8', 'bad'] }),
    ['spec.LoadBalancerSourceRanges: Invalid value: "[10.0.0.0/8 bad]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ']);
  assert.deepEqual(await causes({ loadBalancerSourceRanges: ['10.0.0.0/8'] }),
    ['spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is \'LoadBalancer\'']);
  assert.deepEqual(await causes({ loadBalancerClass: 'example.com/lb' }), ['spec.loadBalancerClass: Forbidden: may only be used when `type` is \'LoadBalancer\'']);
  assert.match((await causes({ type: 'LoadBalancer', loadBalancerClass: 'bad class' }))[0], /^spec\.loadBalancerClass: Invalid value: "bad class": name part must consist/);
  assert.deepEqual(await causes({ externalIPs: ['0.0.0.0', '127.0.0.2', '169.254.1.1', '224.0.0.5', 'fe80::1', '192.0.2.10'] }), [
    'spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    'spec.externalIPs[1]: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8)',
    'spec.externalIPs[2]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16)',
    'spec.externalIPs[3]: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24)',
    'spec.externalIPs[4]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16)',
  ]);
  const none = await create<Service>(svc, { spec: { ports: [{ port: 80 }], sessionAffinityConfig: { clientIP: { timeoutSeconds: 100 } } } });
  assert.deepEqual([none.causes, none.obj.spec?.sessionAffinityConfig], [[], undefined]);
  const lb = (await create<Service>(svc, { spec: { type: 'LoadBalancer', loadBalancerClass: 'example.com/a', ports: [{ port: 80 }] } })).obj;
  assert.deepEqual(await update<Service>(svc, lb, (o) => { o.spec!.loadBalancerClass = 'example.com/b'; }),
    ['spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set']);
});

test('a load balancer status names addresses and DNS names, as the reference checks them', async () => {
  const svc = strategyOf('', 'services');
  const lb = (await create<Service>(svc, { spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } })).obj;
  const status = (ingress: object[]) => text(svc.validateStatusUpdate!({ ...lb, status: { loadBalancer: { ingress } } } as object as ApiObject, lb as object as ApiObject));
  assert.deepEqual(status([{ ip: '203.0.113.5' }, { hostname: 'lb.example.com' }]), []);
  assert.deepEqual(status([{ ip: 'bad' }, { hostname: '203.0.113.5' }]), [
    'status.loadBalancer.ingress[0].ip: Invalid value: "bad": must be a valid IP address',
    'status.loadBalancer.ingress[1].hostname: Invalid value: "203.0.113.5": must be a DNS name, not an IP address',
  ]);
  assert.match(status([{ hostname: 'Bad_Host' }])[0], /^status\.loadBalancer\.ingress\[0\]\.hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain/);
});
