import { connect, constants, ClientHttp2Session } from "node:http2";

/** The 5-byte gRPC message frame of an empty message: not compressed, length 0. */
const EMPTY_MESSAGE = Buffer.alloc(5);

/** A plaintext HTTP/2 (h2c) session to a gRPC server, for warm-up calls. */
export const grpcSession = (origin: string): ClientHttp2Session => connect(origin);

/**
 * One unary gRPC call with an empty request, without a gRPC library: resolves with the
 * grpc-status (0 = OK) once the answer has been read.
 */
export function grpcUnary(session: ClientHttp2Session, method: string, signal: AbortSignal): Promise<number> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const req = session.request(
      {
        [constants.HTTP2_HEADER_METHOD]: "POST",
        [constants.HTTP2_HEADER_PATH]: `/${method}`,
        "content-type": "application/grpc",
        te: "trailers",
      },
      { signal },
    );
    let status: number | undefined;
    // A trailers-only answer (an error) carries grpc-status in its headers.
    req.on("response", (h) => (status = h["grpc-status"] === undefined ? status : Number(h["grpc-status"])));
    req.on("trailers", (t) => (status = Number(t["grpc-status"])));
    req.on("error", reject);
    req.on("end", () => resolve(status ?? 2));
    req.resume();
    req.end(EMPTY_MESSAGE);
  });
}
