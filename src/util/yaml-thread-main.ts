// The YAML decoding thread (see yaml-thread.ts): one document per message, with the schema and nesting bound the
// server's own decoder uses.
import { parentPort } from 'node:worker_threads';
import jsYaml from 'js-yaml';
import type { YamlThreadRequest, YamlThreadResult } from './yaml-thread.js';
import { valueBeyond } from './value-bounds.js';
import { bodyLoadOptions } from './yaml-body.js';

const port = parentPort!;
port.on('message', ({ id, text, maxDepth, lastKeyWins, maxValues }: YamlThreadRequest) => {
  let result: YamlThreadResult;
  try {
    const value = jsYaml.load(text, bodyLoadOptions(jsYaml, text, maxDepth, lastKeyWins));
    // checked here, so that a value past the bounds is never copied to the server's thread
    const beyond = valueBeyond(value, maxValues, maxDepth);
    result = beyond ? { beyond } : { value };
  } catch (e) {
    result = { error: (e as Error).message ?? String(e) };
  }
  port.postMessage({ id, ...result });
});
