// The protobuf codec loads on the first request that names the protobuf media type, keeping its field
// tables out of start-up; once loaded, response writers reach it synchronously.
type Codec = typeof import('./codec.js');

let codec: Codec | undefined;

export async function loadProtobufCodec(): Promise<Codec> {
  return (codec ??= await import('./codec.js'));
}

/** the codec if a request has loaded it, else undefined (and then no request asked for protobuf) */
export const loadedProtobufCodec = (): Codec | undefined => codec;

/** whether a request's Accept or Content-Type header names the protobuf media type */
export function mentionsProtobuf(headers: { accept?: string; 'content-type'?: string }, mediaType: string): boolean {
  return `${headers.accept ?? ''},${headers['content-type'] ?? ''}`.toLowerCase().includes(mediaType);
}
