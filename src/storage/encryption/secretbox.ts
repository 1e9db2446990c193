// XSalsa20-Poly1305 (NaCl's secretbox), which the reference's `secretbox` provider seals values with. node:crypto has
// neither Salsa20 nor a stand-alone Poly1305, and the project's dependencies hold no NaCl implementation, so the two
// small primitives are written here from their specifications (Bernstein's Salsa20 and Poly1305 papers, and the
// XSalsa20 extended nonce). Secrets are few and small, so BigInt arithmetic for Poly1305 is fast enough.
import { timingSafeEqual } from 'node:crypto';

export const secretboxNonceBytes = 24;
export const secretboxTagBytes = 16;

const rotl = (v: number, n: number) => (v << n) | (v >>> (32 - n));
const sigma = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];   // "expand 32-byte k"

/** the Salsa20 state of a 32-byte key and 16 bytes of nonce/counter input */
function initialState(key: Uint8Array, input: Uint8Array): Uint32Array {
  const k = (i: number) => readU32(key, i * 4);
  const n = (i: number) => readU32(input, i * 4);
  return Uint32Array.of(sigma[0], k(0), k(1), k(2), k(3), sigma[1], n(0), n(1), n(2), n(3), sigma[2], k(4), k(5), k(6), k(7), sigma[3]);
}

const readU32 = (b: Uint8Array, at: number) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

/** the 20 rounds (ten double rounds) of Salsa20, in place */
function rounds(x: Uint32Array) {
  const qr = (a: number, b: number, c: number, d: number) => {
    x[b] ^= rotl(x[a] + x[d], 7);
    x[c] ^= rotl(x[b] + x[a], 9);
    x[d] ^= rotl(x[c] + x[b], 13);
    x[a] ^= rotl(x[d] + x[c], 18);
  };
  for (let i = 0; i < 10; i++) {
    qr(0, 4, 8, 12); qr(5, 9, 13, 1); qr(10, 14, 2, 6); qr(15, 3, 7, 11);
    qr(0, 1, 2, 3); qr(5, 6, 7, 4); qr(10, 11, 8, 9); qr(15, 12, 13, 14);
  }
}

/** HSalsa20: a 32-byte subkey from a key and the first 16 bytes of an XSalsa20 nonce */
function hsalsa20(key: Uint8Array, nonce16: Uint8Array): Uint8Array {
  const x = initialState(key, nonce16);
  rounds(x);
  const out = Buffer.alloc(32);
  [0, 5, 10, 15, 6, 7, 8, 9].forEach((w, i) => out.writeUInt32LE(x[w], i * 4));
  return out;
}

/** the Salsa20 key stream of `length` bytes for a key and an 8-byte nonce, from block 0 */
function salsa20Stream(key: Uint8Array, nonce8: Uint8Array, length: number): Buffer {
  const out = Buffer.alloc(Math.ceil(length / 64) * 64);
  const input = Buffer.alloc(16);
  input.set(nonce8, 0);
  for (let block = 0; block * 64 < length; block++) {
    input.writeUInt32LE(block >>> 0, 8);
    input.writeUInt32LE(Math.floor(block / 2 ** 32), 12);
    const start = initialState(key, input);
    const x = Uint32Array.from(start);
    rounds(x);
    for (let i = 0; i < 16; i++) out.writeUInt32LE((x[i] + start[i]) >>> 0, block * 64 + i * 4);
  }
  return out.subarray(0, length);
}

const leBigInt = (b: Uint8Array) => { let n = 0n; for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]); return n; };
const p1305 = (1n << 130n) - 5n;

/** the Poly1305 tag of a message under a one-time 32-byte key */
function poly1305(key: Uint8Array, msg: Uint8Array): Buffer {
  const r = leBigInt(key.subarray(0, 16)) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  const s = leBigInt(key.subarray(16, 32));
  let acc = 0n;
  for (let i = 0; i < msg.length; i += 16) {
    const chunk = msg.subarray(i, i + 16);
    acc = ((acc + leBigInt(chunk) + (1n << BigInt(8 * chunk.length))) * r) % p1305;
  }
  let tag = (acc + s) & ((1n << 128n) - 1n);
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) { out[i] = Number(tag & 0xffn); tag >>= 8n; }
  return out;
}

/** the secretbox of a message: the 16-byte tag, then the ciphertext (NaCl's crypto_secretbox_easy layout) */
export function secretboxSeal(message: Uint8Array, nonce: Uint8Array, key: Uint8Array): Buffer {
  const stream = salsa20Stream(hsalsa20(key, nonce.subarray(0, 16)), nonce.subarray(16, 24), 32 + message.length);
  const box = Buffer.alloc(secretboxTagBytes + message.length);
  for (let i = 0; i < message.length; i++) box[secretboxTagBytes + i] = message[i] ^ stream[32 + i];
  poly1305(stream.subarray(0, 32), box.subarray(secretboxTagBytes)).copy(box, 0);
  return box;
}

/** the message of a secretbox, or undefined when the box was not sealed with this key and nonce (or was altered) */
export function secretboxOpen(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Buffer | undefined {
  if (box.length < secretboxTagBytes) return undefined;
  const cipher = box.subarray(secretboxTagBytes);
  const stream = salsa20Stream(hsalsa20(key, nonce.subarray(0, 16)), nonce.subarray(16, 24), 32 + cipher.length);
  if (!timingSafeEqual(poly1305(stream.subarray(0, 32), cipher), box.subarray(0, secretboxTagBytes))) return undefined;
  const message = Buffer.alloc(cipher.length);
  for (let i = 0; i < cipher.length; i++) message[i] = cipher[i] ^ stream[32 + i];
  return message;
}
