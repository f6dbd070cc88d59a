import { extract } from "tar-stream";
import { describe, expect, it } from "vitest";
import { demuxLogs } from "./logs";
import { tarFiles } from "./tar";

async function entries(buf: Buffer) {
  const out: Record<string, { mode: number | undefined; content: string }> = {};
  const ex = extract();
  const done = (async () => {
    for await (const entry of ex) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      out[entry.header.name] = { mode: entry.header.mode, content: Buffer.concat(chunks).toString() };
    }
  })();
  ex.end(buf);
  await done;
  return out;
}

describe("tarFiles", () => {
  it("packs absolute paths relative to / for putArchive at /", async () => {
    const buf = await tarFiles([
      { path: "/etc/nginx/nginx.conf", content: "events {}\n" },
      { path: "/scalelab/load.js", content: "export default function () {}\n" },
    ]);
    expect(await entries(buf)).toEqual({
      "etc/nginx/nginx.conf": { mode: 0o644, content: "events {}\n" },
      "scalelab/load.js": { mode: 0o644, content: "export default function () {}\n" },
    });
  });

  it.each(["relative/file", "/etc/../root/x"])("refuses %s", async (path) => {
    await expect(tarFiles([{ path, content: "" }])).rejects.toThrow(/absolute/);
  });
});

describe("demuxLogs", () => {
  const frame = (stream: 1 | 2, text: string) => {
    const payload = Buffer.from(text);
    const header = Buffer.alloc(8);
    header[0] = stream;
    header.writeUInt32BE(payload.length, 4);
    return Buffer.concat([header, payload]);
  };

  it("joins stdout and stderr frames in order", () => {
    expect(demuxLogs(Buffer.concat([frame(1, "listening\n"), frame(2, "panic: boom\n")]))).toBe("listening\npanic: boom\n");
  });

  it("returns nothing for no output", () => {
    expect(demuxLogs(Buffer.alloc(0))).toBe("");
  });
});
