// --allow-privileged: without it (the reference's default) every pod spec that asks for a privileged container is
// refused as invalid, in pods and in the templates of workloads; the test server and `npm start` allow them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';

const privileged = { name: 'c', image: 'i', securityContext: { privileged: true } };
const pod = (name: string, container: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [container] } });

describe('--allow-privileged', () => {
  let refusing: TestServer;
  let allowing: TestServer;
  before(async () => { [refusing, allowing] = await Promise.all([startTestServer({ flags: ['--allow-privileged=false'] }), startTestServer()]); });
  after(async () => { await Promise.all([refusing?.close(), allowing?.close()]); });

  const refusal = async (server: TestServer, path: string, body: object) => {
    const e = await server.client.request({ method: 'POST', path, body }).then(() => undefined, (err: any) => err);
    assert.ok(e, `${path} was accepted`);
    assert.equal(e.code, 422, e.message);
    return e.status ?? e.body ?? e;
  };

  test('false: a privileged pod is refused with the field and the reference\'s reason; an ordinary one is not', async () => {
    const status = await refusal(refusing, '/api/v1/namespaces/default/pods', pod('p', privileged));
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual(status.details.causes, [{ reason: 'FieldValueForbidden', field: 'spec.containers[0].securityContext.privileged', message: 'Forbidden: disallowed by cluster policy' }]);
    await refusing.client.request({ method: 'POST', path: '/api/v1/namespaces/default/pods', body: pod('ordinary', { name: 'c', image: 'i', securityContext: { privileged: false } }) });
  });

  test('false: the templates of workloads are checked at their own paths', async () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { initContainers: [privileged], containers: [{ name: 'd', image: 'i' }] } };
    const deployment = await refusal(refusing, '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'a' } }, template } });
    assert.equal(deployment.details.causes[0].field, 'spec.template.spec.initContainers[0].securityContext.privileged');
    const cronJob = await refusal(refusing, '/apis/batch/v1/namespaces/default/cronjobs', {
      apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' },
      spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [privileged] } } } } } });
    assert.equal(cronJob.details.causes[0].field, 'spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged');
  });

  test('the test server allows them', async () => {
    await allowing.client.request({ method: 'POST', path: '/api/v1/namespaces/default/pods', body: pod('p', privileged) });
  });
});
