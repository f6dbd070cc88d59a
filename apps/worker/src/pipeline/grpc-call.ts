import { connect, constants } from "node:http2";

/** The 5-byte gRPC message frame of an empty message: not compressed, length 0. */
const EMPTY_MESSAGE = Buffer.alloc(5);

/**
 * One unary gRPC call with an empty request over plaintext HTTP/2 (h2c), as a warm-up or probe:
 * resolves with the grpc-status (0 = OK) and the response metadata, without a gRPC library. The
 * session is closed afterwards.
 */
export async function grpcUnary(origin: string, method: string, signal: AbortSignal): Promise<{ status: number; headers: Record<string, string> }> {
  signal.throwIfAborted();
  const session = connect(origin);
  try {
    return await new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      session.once("error", reject);
      const req = session.request({
        [constants.HTTP2_HEADER_METHOD]: "POST",
        [constants.HTTP2_HEADER_PATH]: `/${method}`,
        "content-type": "application/grpc",
        te: "trailers",
      });
      const headers: Record<string, string> = {};
      req.on("response", (h) => {
        for (const [k, v] of Object.entries(h)) if (typeof v === "string") headers[k] = v;
      });
      let status: number | undefined;
      req.on("trailers", (t) => (status = Number(t["grpc-status"])));
      req.on("error", reject);
      req.resume();
      req.on("end", () => {
        signal.removeEventListener("abort", onAbort);
        // A trailers-only answer (an error) carries grpc-status in the headers.
        resolve({ status: status ?? Number(headers["grpc-status"] ?? 2), headers });
      });
      req.end(EMPTY_MESSAGE);
    });
  } finally {
    session.close();
  }
}
