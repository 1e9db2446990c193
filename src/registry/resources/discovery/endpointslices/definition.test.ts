import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, strategyOf } from '../../testing/strategy.js';

test('EndpointSlice addresses are checked against the slice\'s address type, ports by name', async () => {
  const es = strategyOf('discovery', 'endpointslices');
  const causes = async (body: object) => (await create(es, body)).causes;
  assert.deepEqual(await causes({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'n1' }], ports: [{ port: 80 }] }), []);
  assert.deepEqual(await causes({ addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1', 'web'], nodeName: 'N_1' }] }), [
    'endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
    'endpoints[0].addresses[1]: Invalid value: "web": must be a valid IPv4 address',
    'endpoints[0].addresses[1]: Invalid value: "web": must be a valid IP address',
    'endpoints[0].nodeName: Invalid value: "N_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
  ]);
  assert.deepEqual(await causes({ addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1', 'fd00::1'] }] }), [
    'endpoints[0].addresses[0]: Invalid value: "10.0.0.1": must be a valid IPv6 address',
  ]);
  assert.deepEqual(await causes({ addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com.', 'db', 'Db.example.com'] }] }), [
    'endpoints[0].addresses[1]: Invalid value: "db": should be a domain with at least two segments separated by dots',
    'endpoints[0].addresses[2]: Invalid value: "Db.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
  ]);
  assert.deepEqual(await causes({ addressType: 'IPv4', ports: [{ port: 80 }, { port: 81 }, { name: 'web', port: 82, appProtocol: 'bad proto' }] }), [
    'ports[1].name: Duplicate value: ""',
    'ports[2].appProtocol: Invalid value: "bad proto": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
  ]);
});

test('Endpoints addresses are IP addresses and several ports have names', async () => {
  const ep = strategyOf('', 'endpoints');
  const causes = async (subsets: object[]) => (await create(ep, { subsets })).causes;
  assert.deepEqual(await causes([{ addresses: [{ ip: '10.0.0.1', nodeName: 'n1' }], ports: [{ port: 80 }] }]), []);
  assert.deepEqual(await causes([{ addresses: [{ ip: 'web', hostname: 'A' }], notReadyAddresses: [{ ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 81, name: 'b' }] }, { ports: [{ port: 80 }] }]), [
    'subsets[0].addresses[0].ip: Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'subsets[0].addresses[0].ip: Invalid value: "web": must be a valid IP address',
    'subsets[0].addresses[0].hostname: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
    'subsets[0].ports[0].name: Required value',
    'subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`',
  ]);
});
