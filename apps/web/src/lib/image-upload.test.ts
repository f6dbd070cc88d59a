import { describe, expect, it } from "vitest";
import { contextType, tagFromFileName, uploadContext } from "./image-upload";

const file = (name: string) => Object.assign(new Blob(["tar bytes"]), { name });

/** A fetch that answers with `body` cut into the given chunks, recording the request. */
function answering(status: number, chunks: string[], type = "application/x-ndjson") {
  const requests: Request[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    requests.push(new Request(new URL(String(url), "http://lab.test"), init));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { "content-type": type } });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

describe("uploadContext", () => {
  it("posts the archive with its media type and NDJSON accepted, hands on steps and output, and resolves with the result", async () => {
    const { fetch, requests } = answering(200, [
      '{"type":"step","step":1,"totalSteps":2,"instruction":"FROM x"}\n{"type":"out',
      'put","line":"hello"}\n',
      '{"type":"result","reference":"myapp:1","id":"sha256:abc","size":5}',
    ]);
    const events: unknown[] = [];
    const outcome = await uploadContext({ file: file("myapp.tgz"), tag: "myapp:1", fetch, onEvent: (e) => events.push(e) });
    expect(outcome).toEqual({ ok: true, reference: "myapp:1", id: "sha256:abc" });
    expect(events).toEqual([
      { type: "step", step: 1, totalSteps: 2, instruction: "FROM x" },
      { type: "output", line: "hello" },
    ]);
    const [req] = requests;
    expect(req!.url).toBe("http://lab.test/api/v1/images?tag=myapp%3A1");
    expect(req!.headers.get("content-type")).toBe("application/gzip");
    expect(req!.headers.get("accept")).toBe("application/x-ndjson");
  });

  it("resolves with a failed build's message and last lines", async () => {
    const { fetch } = answering(200, ['{"type":"error","message":"returned a non-zero code: 3","lastLines":["Step 2/2 : RUN exit 3"]}\n']);
    expect(await uploadContext({ file: file("a.tar"), tag: "a", fetch })).toEqual({
      ok: false,
      message: "returned a non-zero code: 3",
      lastLines: ["Step 2/2 : RUN exit 3"],
      issues: [],
    });
  });

  it("resolves with a refusal's field issues, or its message", async () => {
    const tag = answering(
      400,
      [
        JSON.stringify({
          error: "invalid_input",
          message: "Input validation failed",
          issues: [{ path: "tag", message: "tag has an invalid name" }],
        }),
      ],
      "application/json",
    );
    expect(await uploadContext({ file: file("a.tar"), tag: "A", fetch: tag.fetch })).toMatchObject({
      ok: false,
      message: "tag has an invalid name",
      issues: [{ path: "tag" }],
    });
    const busy = answering(
      429,
      [JSON.stringify({ error: "too_many_requests", message: "Another image is being built" })],
      "application/json",
    );
    expect(await uploadContext({ file: file("a.tar"), tag: "a", fetch: busy.fetch })).toMatchObject({
      ok: false,
      message: "Another image is being built",
    });
  });

  it("says so when the stream ends without a result", async () => {
    const { fetch } = answering(200, ['{"type":"output","line":"x"}\n']);
    expect(await uploadContext({ file: file("a.tar"), tag: "a", fetch })).toMatchObject({
      ok: false,
      message: expect.stringContaining("without a result"),
    });
  });
});

describe("file names", () => {
  it("give the media type and a tag to start from", () => {
    expect(contextType("app.tar.gz")).toBe("application/gzip");
    expect(contextType("app.TGZ")).toBe("application/gzip");
    expect(contextType("app.tar")).toBe("application/x-tar");
    expect(tagFromFileName("My App.tar.gz")).toBe("my-app:latest");
    expect(tagFromFileName("svc_v2.tgz")).toBe("svc_v2:latest");
    expect(tagFromFileName(".tar")).toBe("");
  });
});
