import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BuildLog, LineSplitter, parseJsonLine, ZImageBuildEvent, DockerBuildMessage, TImageBuildEvent } from "./build-output";

/** A real capture of the engine's build stream (Docker 20.10, `POST /build`). */
function replay(fixture: string, log = new BuildLog()): TImageBuildEvent[] {
  const lines = readFileSync(new URL(`./fixtures/${fixture}`, import.meta.url), "utf8").split("\n");
  const events = lines.flatMap((l) => {
    const message = parseJsonLine(l);
    return message === null ? [] : log.accept(message as DockerBuildMessage);
  });
  return [...events, ...log.end()];
}

describe("LineSplitter", () => {
  it("joins a line cut between chunks and keeps the unfinished one for the end", () => {
    const s = new LineSplitter();
    expect(s.push('{"a":')).toEqual([]);
    expect(s.push('1}\r\n{"b":2}\n{"c"')).toEqual(['{"a":1}', '{"b":2}']);
    expect(s.push(":3}")).toEqual([]);
    expect(s.end()).toEqual(['{"c":3}']);
    expect(s.end()).toEqual([]);
  });
});

describe("BuildLog on real build streams", () => {
  it("turns a successful build into steps and output, and keeps the image id", () => {
    const log = new BuildLog();
    const events = replay("build-ok.ndjson", log);
    expect(events.filter((e) => e.type === "step")).toEqual([
      { type: "step", step: 1, totalSteps: 4, instruction: "FROM scalelab/base:1279caf55d59" },
      { type: "step", step: 2, totalSteps: 4, instruction: "COPY hello.txt /" },
      { type: "step", step: 3, totalSteps: 4, instruction: 'CMD ["cat","/hello.txt"]' },
      { type: "step", step: 4, totalSteps: 4, instruction: "LABEL scalelab.user-image=true" },
    ]);
    expect(events).toContainEqual({ type: "output", line: "Successfully tagged sl-imagesapi-capture:1" });
    expect(log.imageId).toBe("sha256:f8122fee3d78e4d4feffebd56546cc87fa49f58504d49eccb7b6bcc1a5d63379");
    expect(log.failure).toBeUndefined();
    for (const e of events) expect(ZImageBuildEvent.parse(e)).toEqual(e);
  });

  it("keeps a failing RUN's command, its output without colour codes, and the engine's error in the last lines", () => {
    const log = new BuildLog();
    replay("build-run-fails.ndjson", log);
    const command = `RUN echo building; echo "to stderr" >&2; exit 3`;
    expect(log.failure).toBe(`The command '/bin/sh -c echo building; echo "to stderr" >&2; exit 3' returned a non-zero code: 3`);
    expect(log.lastLines().slice(-6)).toEqual([
      `Step 3/4 : ${command}`,
      " ---> Running in 60456f9374c3",
      "to stderr",
      "building",
      "Removing intermediate container 60456f9374c3",
      log.failure,
    ]);
    expect(log.imageId).toBeUndefined();
  });

  it("keeps only the last lines it was given, and clips a huge line", () => {
    const log = new BuildLog(3);
    log.accept({ stream: "1\n2\n3\n4\n" });
    log.accept({ stream: `${"x".repeat(10_000)}\n` });
    const last = log.lastLines();
    expect(last.slice(0, 2)).toEqual(["3", "4"]);
    expect(last[2]).toHaveLength(4_001);
  });

  it("reports a pull's status lines but not its progress bars", () => {
    const log = new BuildLog();
    expect(log.accept({ status: "Pulling from library/alpine", id: "3.20" })).toEqual([
      { type: "output", line: "3.20: Pulling from library/alpine" },
    ]);
    expect(log.accept({ status: "Downloading", progressDetail: { current: 1, total: 2 }, id: "abc" })).toEqual([]);
  });

  it("takes an error without errorDetail, and the first error is the failure", () => {
    const log = new BuildLog();
    log.accept({ error: "first" });
    log.accept({ error: "second" });
    expect(log.failure).toBe("first");
  });
});

describe("parseJsonLine", () => {
  it("is null for blank lines and non-JSON", () => {
    expect(parseJsonLine("  ")).toBeNull();
    expect(parseJsonLine("{nope")).toBeNull();
    expect(parseJsonLine('{"type":"output","line":"x"}')).toEqual({ type: "output", line: "x" });
  });
});
