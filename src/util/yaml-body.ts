// The options request bodies are decoded with, on the server's thread and on the decoding thread alike.
import type * as JsYaml from 'js-yaml';
import { collectionKeyRefuser } from './yaml-keys.js';

type Decoder = Pick<typeof JsYaml, 'CORE_SCHEMA'> & { types?: { merge?: JsYaml.Type } };

let schema: JsYaml.Schema | undefined;

/**
 * The YAML 1.2 core schema with merge keys (`<<: *base`), which the reference's YAML decoder merges. Merging is work
 * the text's size does not bound (a large mapping merged into many small ones), so the keys merged are bounded by
 * the text's length, as aliases are; past that the document is refused.
 */
export function bodyLoadOptions(y: Decoder, text: string, maxDepth: number, lastKeyWins: boolean): JsYaml.LoadOptions {
  schema ??= y.types?.merge ? y.CORE_SCHEMA.extend({ implicit: [y.types.merge] }) : y.CORE_SCHEMA;
  // (js-yaml's json option is its JSON.parse compatibility: a repeated key's last value wins)
  return { schema, maxDepth, json: lastKeyWins, listener: collectionKeyRefuser(text), maxTotalMergeKeys: text.length + 16 } as JsYaml.LoadOptions;
}
