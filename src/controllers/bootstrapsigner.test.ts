// The detached JWS of cluster-info: the same string for the same content and token, verifying as HS256 with the whole token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { detachedSignature } from './bootstrapsigner.js';

test('header..signature, the header as the reference writes it, HMAC-SHA256 keyed with <id>.<secret>', () => {
  const sig = detachedSignature('content', 'abcdef', '0123456789abcdef');
  const [header, payload, signature] = sig.split('.');
  assert.equal(payload, '');
  assert.equal(Buffer.from(header!, 'base64url').toString(), '{"alg":"HS256","kid":"abcdef"}');
  const expected = createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.${Buffer.from('content').toString('base64url')}`).digest('base64url');
  assert.equal(signature, expected);
  assert.equal(detachedSignature('content', 'abcdef', '0123456789abcdef'), sig);
  assert.notEqual(detachedSignature('other', 'abcdef', '0123456789abcdef'), sig);
});
