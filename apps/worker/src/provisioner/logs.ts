/**
 * Docker multiplexes a non-TTY container's stdout and stderr into frames: one byte stream id,
 * three zero bytes, a big-endian uint32 length, then the payload.
 */
export function demuxLogs(buf: Buffer): string {
  let out = "";
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    out += buf.subarray(i + 8, i + 8 + size).toString("utf8");
    i += 8 + size;
  }
  return i === 0 && buf.length > 0 ? buf.toString("utf8") : out;
}
