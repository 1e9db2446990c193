// The YAML decoding thread (see yaml-thread.ts): one document per message, with the schema and nesting bound the
// server's own decoder uses.
import { parentPort } from 'node:worker_threads';
import jsYaml from 'js-yaml';
import type { YamlThreadRequest, YamlThreadResult } from './yaml-thread.js';

const port = parentPort!;
port.on('message', ({ id, text, maxDepth, lastKeyWins }: YamlThreadRequest) => {
  let result: YamlThreadResult;
  try {
    result = { value: jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, maxDepth, json: lastKeyWins } as Parameters<typeof jsYaml.load>[1]) };
  } catch (e) {
    result = { error: (e as Error).message ?? String(e) };
  }
  port.postMessage({ id, ...result });
});
