import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import type { NodeMetrics, PodMetrics } from '../api/resource-metrics.js';
import { metricsTable, tableVersion } from './table.js';

const names = naming();
const meta = names.metaGroup;
const kubectl = `application/json;as=Table;v=v1;g=${meta},application/json;as=Table;v=v1beta1;g=${meta},application/json`;
const node = (name: string, cpu: string, memory: string): NodeMetrics => ({
  apiVersion: 'x/v1beta1', kind: 'NodeMetrics', metadata: { name, creationTimestamp: '2020-01-01T00:00:00Z' },
  timestamp: '2020-01-01T00:00:00Z', window: '20.05s', usage: { cpu, memory },
});

describe('the Table form of the metrics kinds', () => {
  test('is what kubectl asks for first; plain JSON otherwise', () => {
    assert.equal(tableVersion(kubectl, names), 'v1');
    assert.equal(tableVersion(`application/json;as=Table;v=v1beta1;g=${meta}`, names), 'v1beta1');
    assert.equal(tableVersion('application/json', names), undefined);
    assert.equal(tableVersion(undefined, names), undefined);
    assert.equal(tableVersion('application/json;as=Table;v=v1;g=meta.elsewhere.io,application/json', names), undefined);
    assert.equal(tableVersion(`application/json,application/json;as=Table;v=v1;g=${meta}`, names), undefined);
  });

  test('nodes: Name, the measured resources sorted, Window; PartialObjectMetadata rows by default', () => {
    const t = metricsTable({ metadata: {}, items: [node('n1', '250000000n', '2097152Ki'), node('n2', '1234n', '1500')] }, 'v1', names, null);
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, `${meta}/v1`);
    assert.deepEqual(t.columnDefinitions.map(c => [c.name, c.format]), [['Name', 'name'], ['cpu', 'quantity'], ['memory', 'quantity'], ['Window', 'duration']]);
    assert.deepEqual(t.rows.map(r => r.cells), [['n1', '250m', '2Gi', '20.05s'], ['n2', '1234n', '1500', '20.05s']]);
    assert.equal((t.rows[0]!.object as { kind: string }).kind, 'PartialObjectMetadata');
    assert.equal(metricsTable(node('n1', '1n', '1Ki'), 'v1beta1', names, 'None').rows[0]!.object, undefined);
    assert.throws(() => metricsTable(node('n1', '1n', '1Ki'), 'v1', names, 'Everything'), /includeObject: Unsupported value/);
  });

  test('pods: the sum of their containers; an empty list has no columns', () => {
    const pod: PodMetrics = {
      apiVersion: 'x/v1beta1', kind: 'PodMetrics', metadata: { name: 'web', namespace: 'ns', creationTimestamp: '2020-01-01T00:00:00Z' },
      timestamp: '2020-01-01T00:00:00Z', window: '15s',
      containers: [{ name: 'a', usage: { cpu: '600000n', memory: '2048Ki' } }, { name: 'b', usage: { cpu: '400000n', memory: '1024Ki' } }],
    };
    assert.deepEqual(metricsTable({ metadata: {}, items: [pod] }, 'v1', names, 'None').rows[0]!.cells, ['web', '1m', '3Mi', '15s']);
    assert.deepEqual(metricsTable({ metadata: {}, items: [] }, 'v1', names, null).columnDefinitions, []);
  });
});
