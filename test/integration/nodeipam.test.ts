// Node IPAM against a real server: the API server's embedded controller manager, run with the flags of kubeadm's
// manifest, gives each node a CIDR of its own from --cluster-cidr (the service range kept out), tells a node it
// has none left for, and hands a deleted node's CIDR to the next node.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { waitFor } from '../support/cluster.js';

const nodes = { group: '', version: 'v1', resource: 'nodes' };
const events = { group: '', version: 'v1', resource: 'events' };

describe('node IPAM', () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    // 10.0.0.0/22 holds four /24s; the server's default service range 10.0.0.0/24 takes the first
    server = await startTestServer({ flags: ['--controllers=nodeipam', '--allocate-node-cidrs=true', '--cluster-cidr=10.0.0.0/22', '--node-cidr-mask-size=24', '--cluster-name=kubernetes'] });
    client = await clientFromFile(server.kubeconfig);
  });
  after(async () => {
    client?.close();
    await server?.close();
  });

  const cidrsOf = async (name: string): Promise<string[] | undefined> => {
    const node = await client.resource(nodes).get(name);
    return node.spec?.podCIDRs?.length ? node.spec.podCIDRs : undefined;
  };

  test('each node gets a distinct CIDR outside the service range; a deleted node\'s CIDR goes to the next node', async () => {
    for (const name of ['n1', 'n2', 'n3']) await client.resource(nodes).create({ metadata: { name } });
    const given = new Map<string, string>();
    for (const name of ['n1', 'n2', 'n3']) {
      const cidrs = await waitFor(`a CIDR for ${name}`, () => cidrsOf(name));
      assert.equal(cidrs.length, 1);
      given.set(name, cidrs[0]!);
      assert.equal((await client.resource(nodes).get(name)).spec.podCIDR, cidrs[0], 'podCIDR is the first of podCIDRs');
    }
    assert.deepEqual([...given.values()].sort(), ['10.0.1.0/24', '10.0.2.0/24', '10.0.3.0/24']);

    await client.resource(nodes).create({ metadata: { name: 'n4' } });
    const event = await waitFor('the CIDRNotAvailable event', async () =>
      (await client.resource(events, 'default').list()).items.find((e: any) => e.reason === 'CIDRNotAvailable' && e.involvedObject?.name === 'n4'));
    assert.equal(event.involvedObject.kind, 'Node');
    assert.equal(await cidrsOf('n4'), undefined);

    await client.resource(nodes).delete('n2');
    const reused = await waitFor('a CIDR for n4 once n2 is gone', () => cidrsOf('n4'));
    assert.deepEqual(reused, [given.get('n2')]);
  });

  test('a node created with its CIDR keeps it, and that CIDR is not given to another', async () => {
    // frees 10.0.1.0/24 and n4's (n2's) CIDR, 10.0.2.0/24
    await client.resource(nodes).delete('n1');
    await client.resource(nodes).delete('n4');
    await client.resource(nodes).create({ metadata: { name: 'held' }, spec: { podCIDRs: ['10.0.2.0/24'] } });
    await client.resource(nodes).create({ metadata: { name: 'n5' } });
    const cidrs = await waitFor('a CIDR for n5', () => cidrsOf('n5'));
    assert.deepEqual(cidrs, ['10.0.1.0/24']);
    assert.deepEqual(await cidrsOf('held'), ['10.0.2.0/24']);
  });
});
