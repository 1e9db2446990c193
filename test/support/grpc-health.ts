// A gRPC server speaking the health protocol (grpc.health.v1.Health/Check), for the tests of gRPC probes.
import * as grpc from '@grpc/grpc-js';

/** a gRPC server answering the health protocol: SERVING for the whole server and "web", NOT_SERVING for "db", NotFound
 *  for other services; or, with `health: false`, no health service at all */
export async function healthServer(health = true): Promise<{ port: number; close(): void }> {
  const server = new grpc.Server();
  if (health) {
    const check = (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      // the request's one field (1: service), written by hand as the prober does
      const service = call.request.length ? call.request.subarray(2, 2 + call.request[1]!).toString() : '';
      if (service === '' || service === 'web') return callback(null, Buffer.from([0x08, 1]));
      if (service === 'db') return callback(null, Buffer.from([0x08, 2]));
      callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' } as grpc.ServiceError);
    };
    server.addService({
      Check: { path: '/grpc.health.v1.Health/Check', requestStream: false, responseStream: false,
        requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b },
    }, { Check: check });
  }
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { port, close: () => server.forceShutdown() };
}
