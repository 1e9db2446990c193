import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../../../../api/types/core-v1.js';
import { create, ctx, strategyOf, update } from '../../testing/strategy.js';

test('Secret of the service-account-token type needs its account annotation; its type is immutable', async () => {
  const secrets = strategyOf('', 'secrets');
  const type = `${ctx.names.labelDomain}/service-account-token`;
  const r = await create(secrets, { type });
  assert.deepEqual(r.causes, [`metadata.annotations[${ctx.names.labelDomain}/service-account.name]: Required value`]);
  const ok = await create<Secret>(secrets, { data: { a: 'eA==' } });
  assert.deepEqual(await update<Secret>(secrets, ok.obj, o => { o.type = 'other'; }), ['type: Invalid value: "other": field is immutable']);
});

test('stringData folds into data, base64-encoded', async () => {
  const { obj } = await create<Secret>(strategyOf('', 'secrets'), { data: { a: 'eA==' }, stringData: { b: 'y' } });
  assert.deepEqual([obj.type, obj.data, obj.stringData], ['Opaque', { a: 'eA==', b: 'eQ==' }, undefined]);
});

test('a docker config Secret holds a JSON object, as the reference reads it into one', async () => {
  const secrets = strategyOf('', 'secrets');
  const type = `${ctx.names.labelDomain}/dockerconfigjson`;
  const causes = async (text: string) => (await create(secrets, { type, stringData: { '.dockerconfigjson': text } })).causes;
  assert.deepEqual(await causes('{"auths":{}}'), []);
  assert.deepEqual(await causes('null'), []);
  const at = 'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>"';
  assert.deepEqual(await causes('[1]'), [`${at}: json: cannot unmarshal array into Go value of type map[string]interface {}`]);
  assert.deepEqual(await causes('"auths"'), [`${at}: json: cannot unmarshal string into Go value of type map[string]interface {}`]);
  assert.deepEqual(await causes(''), [`${at}: unexpected end of JSON input`]);
  assert.deepEqual(await causes('auths: {}'), [`${at}: invalid character 'a' looking for beginning of value`]);
});
