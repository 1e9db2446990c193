import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../api/meta.js';
import type { Endpoints, Node, Pod, Service } from '../../api/types/core-v1.js';
import type { Job } from '../../api/types/batch-v1.js';
import { builtinResources } from './index.js';
import { apiDomains, naming } from '../../api/naming.js';
import { convertHorizontalPodAutoscalers } from './autoscaling/horizontalpodautoscalers/conversion.js';
import { formatLabelSelector, humanDuration, since } from './columns.js';
import { podSummary as podSummaryOf } from './core/pods/columns.js';
import { serviceExternalIP as externalIPOf, servicePorts as portsOf } from './core/services/columns.js';
import { formatEndpoints as endpointsOf } from './core/endpoints/definition.js';
import { nodeRoles as rolesOf, nodeStatus as statusOf } from './core/nodes/columns.js';
import { jobCompletions as completionsOf, jobDuration as durationOf } from './batch/jobs/columns.js';

// cells read whatever storage holds: these tests give them partial objects
const podSummary = (o: unknown) => podSummaryOf(o as Pod);
const serviceExternalIP = (o: unknown) => externalIPOf(o as Service);
const servicePorts = (o: unknown) => portsOf(o as Service);
const formatEndpoints = (o: unknown) => endpointsOf(o as Endpoints);
const nodeStatus = (o: unknown) => statusOf(o as Node);
const nodeRoles = (o: unknown, prefixes: string[], labels: string[]) => rolesOf(o as Node, prefixes, labels);
const jobCompletions = (o: unknown) => completionsOf(o as Job);
const jobDuration = (o: unknown) => durationOf(o as Job);

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const columnsOf = (group: string, resource: string) =>
  builtinResources.find(r => r.group === group && r.resource === resource)!.columns!;
const cells = (group: string, resource: string, obj: unknown, wide = false) =>
  columnsOf(group, resource).filter(c => wide || !c.priority).map(c => c.cell!(obj as ApiObject));

describe('human durations', () => {
  test('follow the reference steps', () => {
    const cases: Array<[number, string]> = [
      [-5 * s, '<invalid>'], [-500, '0s'], [0, '0s'], [59 * s, '59s'], [119 * s, '119s'], [2 * m, '2m'],
      [3 * m + 20 * s, '3m20s'], [10 * m + 30 * s, '10m'], [179 * m, '179m'], [3 * h, '3h'], [5 * h + 30 * m, '5h30m'],
      [8 * h, '8h'], [47 * h, '47h'], [2 * d, '2d'], [2 * d + 3 * h, '2d3h'], [8 * d, '8d'], [400 * d, '400d'],
      [730 * d, '2y'], [800 * d, '2y70d'], [9 * 365 * d, '9y'],
    ];
    for (const [ms, text] of cases) assert.equal(humanDuration(ms), text, `${ms}ms`);
    assert.equal(since(undefined), '<unknown>');
    assert.equal(since('not a time'), '<unknown>');
    assert.equal(since('2020-01-01T00:00:00Z', Date.parse('2020-01-01T00:05:00Z')), '5m');
  });
});

describe('pod cells', () => {
  const running = {
    metadata: { name: 'web', creationTimestamp: ago(15 * m) },
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Running',
      podIP: '10.0.0.7',
      containerStatuses: [
        { name: 'a', ready: true, restartCount: 0, state: { running: { startedAt: ago(m) } } },
        { name: 'b', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, finishedAt: ago(12 * m) } } },
      ],
    },
  };

  test('ready count, the waiting reason and restarts with the last restart', () => {
    assert.deepEqual(podSummary(running), { ready: '1/2', status: 'CrashLoopBackOff', restarts: '3 (12m ago)' });
    assert.deepEqual(cells('', 'pods', running), ['1/2', 'CrashLoopBackOff', '3 (12m ago)', '15m']);
    assert.deepEqual(cells('', 'pods', running, true).slice(4), ['10.0.0.7', '<none>', '<none>', '<none>']);
  });

  test('pending, init, completed, terminating and gated pods', () => {
    assert.equal(podSummary({ spec: { containers: [{}] }, status: { phase: 'Pending' } }).status, 'Pending');
    const init = {
      spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'c' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', restartCount: 0, state: { terminated: { exitCode: 0 } } },
          { name: 'i2', restartCount: 0, state: { running: {} } },
        ],
      },
    };
    assert.deepEqual(podSummary(init), { ready: '0/1', status: 'Init:1/2', restarts: '0' });
    init.status.initContainerStatuses[1].state = { waiting: { reason: 'ImagePullBackOff' } } as never;
    assert.equal(podSummary(init).status, 'Init:ImagePullBackOff');
    init.status.initContainerStatuses[1].state = { terminated: { exitCode: 2 } } as never;
    assert.equal(podSummary(init).status, 'Init:ExitCode:2');

    const done = {
      spec: { containers: [{}] },
      status: { phase: 'Succeeded', containerStatuses: [{ restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
    };
    assert.deepEqual(podSummary(done), { ready: '0/1', status: 'Completed', restarts: '0' });
    assert.equal(podSummary({ ...running, metadata: { deletionTimestamp: ago(0) } }).status, 'Terminating');
    assert.equal(podSummary({
      spec: { containers: [{}] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    }).status, 'SchedulingGated');
  });

  test('readiness gates count the true conditions', () => {
    const pod = {
      spec: { containers: [], readinessGates: [{ conditionType: 'x' }, { conditionType: 'y' }] },
      status: { conditions: [{ type: 'x', status: 'True' }] },
    };
    assert.equal(cells('', 'pods', pod, true)[7], '1/2');
  });
});

describe('service, endpoint and node cells', () => {
  test('external IPs by service type, and ports with node ports', () => {
    assert.equal(serviceExternalIP({ spec: { type: 'ClusterIP' } }), '<none>');
    assert.equal(serviceExternalIP({ spec: { type: 'LoadBalancer' } }), '<pending>');
    assert.equal(serviceExternalIP({
      spec: { type: 'LoadBalancer', externalIPs: ['1.2.3.4'] },
      status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example' }] } },
    }), '5.6.7.8,lb.example,1.2.3.4');
    assert.equal(serviceExternalIP({ spec: { type: 'ExternalName', externalName: 'db.example' } }), 'db.example');
    assert.equal(servicePorts({ spec: { ports: [{ port: 80, protocol: 'TCP' }, { port: 53, nodePort: 30053, protocol: 'UDP' }] } }),
      '80/TCP,53:30053/UDP');
    const svc = { metadata: { creationTimestamp: ago(3 * h) }, spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{ port: 443, protocol: 'TCP' }], selector: { b: '2', a: '1' } } };
    assert.deepEqual(cells('', 'services', svc, true), ['ClusterIP', '10.96.0.1', '<none>', '443/TCP', '3h', 'a=1,b=2']);
  });

  test('endpoints list at most three addresses', () => {
    const ep = { subsets: [{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }], ports: [{ port: 80 }, { port: 443 }] }] };
    assert.equal(formatEndpoints(ep), '1.1.1.1:80,2.2.2.2:80,1.1.1.1:443 + 1 more...');
    assert.equal(formatEndpoints({}), '<none>');
  });

  test('node status and roles', () => {
    assert.equal(nodeStatus({}), 'Unknown');
    assert.equal(nodeStatus({ spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }), 'Ready,SchedulingDisabled');
    assert.equal(nodeStatus({ status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }), 'NotReady');
    const labels = { 'node-role.example/control-plane': '', 'node-role.example/worker': '', 'example/role': 'edge', other: 'x' };
    assert.equal(nodeRoles({ metadata: { labels } }, ['node-role.example/'], ['example/role']), 'control-plane,edge,worker');
    assert.equal(nodeRoles({ metadata: {} }, ['node-role.example/'], ['example/role']), '<none>');
  });
});

describe('workload cells', () => {
  test('deployments, replica sets, stateful sets and daemon sets', () => {
    const dep = {
      metadata: { creationTimestamp: ago(d + h) },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    };
    assert.deepEqual(cells('apps', 'deployments', dep, true), ['2/3', 3, 2, '25h', 'web', 'nginx:1', 'app=web']);
    assert.deepEqual(cells('apps', 'replicasets', dep), [3, 0, 2, '25h']);
    assert.deepEqual(cells('apps', 'statefulsets', dep), ['2/3', '25h']);
    assert.equal(cells('apps', 'daemonsets', { spec: { template: { spec: { nodeSelector: { os: 'linux' } } } } })[5], 'os=linux');
  });

  test('jobs and cron jobs', () => {
    assert.equal(jobCompletions({ spec: { completions: 3 }, status: { succeeded: 1 } }), '1/3');
    assert.equal(jobCompletions({ spec: { parallelism: 2 }, status: {} }), '0/1 of 2');
    assert.equal(jobCompletions({ spec: {} }), '0/1');
    assert.equal(jobDuration({ status: { startTime: '2020-01-01T00:00:00Z', completionTime: '2020-01-01T00:00:42Z' } }), '42s');
    assert.equal(jobDuration({ status: {} }), '');
    const cj = { spec: { schedule: '*/5 * * * *', suspend: false }, status: { active: [{ name: 'x' }] } };
    // the reference prints Suspend as text, capitalised, <unset> when absent
    assert.deepEqual(cells('batch', 'cronjobs', cj).slice(0, 4), ['*/5 * * * *', 'False', 1, '<none>']);
    assert.equal(cells('batch', 'cronjobs', { spec: { suspend: true } })[1], 'True');
    assert.equal(cells('batch', 'cronjobs', { spec: {} })[1], '<unset>');
  });

  test('label selectors print in the reference form', () => {
    assert.equal(formatLabelSelector(undefined), '<none>');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({
      matchLabels: { tier: 'web' },
      matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }, { key: 'zz', operator: 'DoesNotExist' }],
    }), 'env in (dev,prod),tier=web,!zz');
  });
});

describe('every column of every resource', () => {
  test('computes a cell from an empty object and from a bare one', () => {
    for (const def of builtinResources) {
      for (const col of def.columns ?? []) {
        assert.ok(col.cell || col.jsonPath, `${def.resource} ${col.name} has a cell`);
        for (const obj of [{}, { metadata: { name: 'x', creationTimestamp: ago(m) }, spec: {}, status: {} }]) {
          const v = col.cell!(obj as ApiObject);
          assert.ok(v === null || ['string', 'number', 'boolean'].includes(typeof v), `${def.resource} ${col.name}: ${typeof v}`);
        }
      }
    }
  });

  test('the reference column sets of the common kinds', () => {
    const names = (group: string, resource: string) => columnsOf(group, resource).map(c => (c.priority ? `(${c.name})` : c.name));
    assert.deepEqual(names('', 'pods'), ['Ready', 'Status', 'Restarts', 'Age', '(IP)', '(Node)', '(Nominated Node)', '(Readiness Gates)']);
    assert.deepEqual(names('', 'services'), ['Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', '(Selector)']);
    assert.deepEqual(names('', 'namespaces'), ['Status', 'Age']);
    assert.deepEqual(names('', 'nodes').slice(0, 4), ['Status', 'Roles', 'Age', 'Version']);
    assert.deepEqual(names('', 'configmaps'), ['Data', 'Age']);
    assert.deepEqual(names('', 'secrets'), ['Type', 'Data', 'Age']);
    assert.deepEqual(names('', 'serviceaccounts'), ['Secrets', 'Age']);
    assert.deepEqual(names('apps', 'deployments').slice(0, 4), ['Ready', 'Up-to-date', 'Available', 'Age']);
    assert.deepEqual(names('rbac.authorization', 'roles'), ['Created At']);
    assert.equal(columnsOf('rbac.authorization', 'roles')[0].type, 'date');
    assert.equal(columnsOf('', 'pods').find(c => c.name === 'Age')!.type, 'string');
    assert.deepEqual(names('', 'events').filter(n => !n.startsWith('(')), ['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
  });
});

describe('event cells', () => {
  test('read core and events/v1 shapes alike', () => {
    const core = {
      metadata: { name: 'web.1' }, type: 'Warning', reason: 'BackOff', message: 'restarting',
      involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{a}' },
      source: { component: 'kubelet', host: 'n1' }, firstTimestamp: ago(40 * m), lastTimestamp: ago(30 * m), count: 4,
    };
    assert.deepEqual(cells('', 'events', core, true),
      ['30m', 'Warning', 'BackOff', 'pod/web', 'spec.containers{a}', 'kubelet, n1', 'restarting', '40m', 4, 'web.1']);
    const v1 = {
      metadata: { name: 'web.2' }, type: 'Normal', reason: 'Pulled', note: 'pulled image',
      regarding: { kind: 'Pod', name: 'web' }, reportingController: 'kubelet', eventTime: ago(20 * m),
    };
    assert.deepEqual(cells('events', 'events', v1), ['20m', 'Normal', 'Pulled', 'pod/web', 'pulled image']);
  });

  test('an object without a name prints as its kind, and the message is trimmed', () => {
    const e = { metadata: { name: 'n.1' }, type: 'Normal', reason: 'Starting', message: '  starting  \n',
      involvedObject: { kind: 'Node' }, firstTimestamp: ago(m), lastTimestamp: ago(m), count: 1 };
    assert.deepEqual(cells('', 'events', e), ['60s', 'Normal', 'Starting', 'node', 'starting']);
  });
});

describe('storage cells', () => {
  test('access modes print in the reference order whatever the order of the list', () => {
    const pv = { spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany', 'ReadOnlyMany', 'ReadWriteOnce', 'ReadOnlyMany'] } };
    assert.deepEqual(cells('', 'persistentvolumes', pv).slice(0, 2), ['5Gi', 'RWO,ROX,RWX']);
    const claim = { spec: { volumeName: 'pv1' }, status: { phase: 'Bound', accessModes: ['ReadOnlyMany', 'ReadWriteOnce'] } };
    assert.deepEqual(cells('', 'persistentvolumeclaims', claim).slice(0, 4), ['Bound', 'pv1', '0', 'RWO,ROX']);
  });

  test('the class of volumes and claims is the beta annotation before the field', () => {
    const beta = { metadata: { annotations: { 'volume.beta.example.io/storage-class': 'old' } }, spec: { storageClassName: 'new' } };
    const classOf = (resource: string, o: unknown) =>
      cells('', resource, o)[columnsOf('', resource).filter(c => !c.priority).findIndex(c => c.name === 'StorageClass')];
    assert.equal(classOf('persistentvolumes', beta), 'old');
    assert.equal(classOf('persistentvolumeclaims', beta), 'old');
    assert.equal(classOf('persistentvolumes', { spec: { storageClassName: 'new' } }), 'new');
  });

  test('the default storage class is named with (default), by the GA or the beta annotation', () => {
    const sc = (annotations: Record<string, string>) => ({ metadata: { name: 'fast', annotations }, provisioner: 'x.io/p' });
    const name = columnsOf('storage', 'storageclasses')[0];
    assert.equal(name.format, 'name');
    assert.equal(name.cell!(sc({ 'storageclass.example.io/is-default-class': 'true' }) as ApiObject), 'fast (default)');
    assert.equal(name.cell!(sc({ 'storageclass.beta.example.io/is-default-class': 'true' }) as ApiObject), 'fast (default)');
    assert.equal(name.cell!(sc({ 'storageclass.example.io/is-default-class': 'false' }) as ApiObject), 'fast');
  });
});

describe('autoscaler targets', () => {
  const targets = (metrics: unknown[], currentMetrics: unknown[] = []) =>
    cells('autoscaling', 'horizontalpodautoscalers', { spec: { metrics }, status: { currentMetrics } })[1];
  const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };
  const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } };
  const external = { type: 'External', external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '5' } } };
  const object = { type: 'Object', object: { metric: { name: 'r' }, target: { type: 'Value', value: '7' } } };

  test('show the first two metrics and count the others', () => {
    assert.equal(targets([cpu, pods, external, object]), '<unknown>/80%, <unknown>/10 + 2 more...');
    assert.equal(targets([cpu, pods]), '<unknown>/80%, <unknown>/10');
    assert.equal(targets([cpu], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 12 } } }]), '12%/80%');
  });

  test('an autoscaling/v1 object shows every metric, its annotations read back, as its v2 form does', async () => {
    for (const domain of apiDomains) {
      const v2 = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
        spec: { metrics: [pods, cpu] }, status: { currentMetrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '4' } } }] } };
      const [v1] = await convertHorizontalPodAutoscalers([v2 as ApiObject], 'autoscaling/v1', naming(domain));
      assert.equal(cells('autoscaling', 'horizontalpodautoscalers', v1)[1], '4/10, <unknown>/80%');
      assert.equal(cells('autoscaling', 'horizontalpodautoscalers', v2)[1], '4/10, <unknown>/80%');
    }
    const cpuOnly = { apiVersion: 'autoscaling/v1', metadata: { name: 'h' }, spec: { targetCPUUtilizationPercentage: 50 }, status: { currentCPUUtilizationPercentage: 7 } };
    assert.equal(cells('autoscaling', 'horizontalpodautoscalers', cpuOnly)[1], '7%/50%');
  });

  test('averages of external and object metrics say (avg)', () => {
    assert.equal(targets([external, object]), '<unknown>/5 (avg), <unknown>/7');
    assert.equal(targets([{ type: 'Object', object: { metric: { name: 'r' }, target: { type: 'AverageValue', averageValue: '3' } } }],
      [{ type: 'Object', object: { metric: { name: 'r' }, current: { averageValue: '2' } } }]), '2/3 (avg)');
  });
});

describe('flow schema cells', () => {
  test('a schema without a distinguisher says <none>, and MissingPL shows without -o wide', () => {
    const exempt = { spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 1 },
      status: { conditions: [{ type: 'Dangling', status: 'False' }] } };
    const fs = { group: 'flowcontrol.apiserver', resource: 'flowschemas' };
    assert.deepEqual(columnsOf(fs.group, fs.resource).map(c => (c.priority ? `(${c.name})` : c.name)),
      ['PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
    const row = cells(fs.group, fs.resource, exempt);
    assert.deepEqual([row[0], row[1], row[2], row[4]], ['exempt', 1, '<none>', 'False']);
    assert.equal(cells(fs.group, fs.resource, { spec: { distinguisherMethod: { type: 'ByUser' } } })[4], '?');
  });
});

describe('ingress and endpoint slice cells', () => {
  test('an ingress lists three hosts, then counts the rules left', () => {
    const rules = (...hosts: string[]) => ({ spec: { rules: hosts.map(host => (host ? { host } : {})) } });
    const hosts = (o: unknown) => cells('networking', 'ingresses', o)[1];
    assert.equal(hosts(rules('a', '', 'b', 'c', 'd')), 'a,b,c + 2 more...');
    assert.equal(hosts(rules('a', 'b', 'c', '')), 'a,b,c + 1 more...');
    assert.equal(hosts(rules('a', 'b', 'c')), 'a,b,c');
    assert.equal(hosts(rules('', '')), '*');
  });

  test('a slice lists three ports, by number, name or *', () => {
    const ports = (p: unknown[]) => cells('discovery', 'endpointslices', { addressType: 'IPv4', ports: p })[1];
    assert.equal(ports([{ port: 80 }, { name: 'http' }, {}, { port: 1 }]), '80,http,* + 1 more...');
    assert.equal(ports([{ port: 80, name: 'http' }]), '80');
    assert.equal(ports([]), '<unset>');
  });
});

describe('certificate signing request cells', () => {
  const condition = (status: unknown) => cells('certificates', 'certificatesigningrequests', { metadata: { name: 'c' }, spec: {}, status }).at(-1);

  test('the decision (Denied over Approved over Pending), then Failed, then Issued, by condition type alone', () => {
    assert.equal(condition(undefined), 'Pending');
    assert.equal(condition({ conditions: [{ type: 'Failed', status: 'True' }] }), 'Pending,Failed');
    assert.equal(condition({ conditions: [{ type: 'Failed', status: 'True' }, { type: 'Approved', status: 'True' }] }), 'Approved,Failed');
    assert.equal(condition({ conditions: [{ type: 'Approved', status: 'True' }], certificate: 'eA==' }), 'Approved,Issued');
    assert.equal(condition({ certificate: 'eA==' }), 'Pending,Issued');
    assert.equal(condition({ conditions: [{ type: 'Ready', status: 'True' }, { type: 'Denied', status: 'True' }] }), 'Denied', 'other condition types are not shown');
  });
});
