import { formatBytes, LineSplitter, parseJsonLine, ZImageBuildEvent, type TImageBuildEvent } from "@scalelab/scenarios/images";
import type { Command } from "../args";
import { call } from "../client";
import { packContext } from "../context";
import { CliError, EXIT, type ExitCode } from "../errors";
import { printJson, type Ctx } from "./context";

const NDJSON = "application/x-ndjson";

/** The build's events as they come, from the answer's stream of JSON lines; lines that are not events are skipped. */
export async function* buildEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<TImageBuildEvent> {
  const lines = new LineSplitter();
  const decoder = new TextDecoder();
  const parse = (line: string) => ZImageBuildEvent.safeParse(parseJsonLine(line)).data;
  for await (const chunk of body) {
    for (const line of lines.push(decoder.decode(chunk, { stream: true }))) {
      const event = parse(line);
      if (event) yield event;
    }
  }
  for (const line of lines.end()) {
    const event = parse(line);
    if (event) yield event;
  }
}

/**
 * `scalelab images push <dir> --tag <tag>`: the directory as a tar.gz (less what its .dockerignore
 * excludes) to `POST /images`, the build's steps and output shown as they come (nothing but the
 * result with --json). A build that fails exits 2 with its last lines, as a failed run does.
 */
export async function pushImage(ctx: Ctx, cmd: Extract<Command, { name: "images-push" }>): Promise<ExitCode> {
  const { lab } = ctx;
  const { body, files } = await packContext(cmd.dir);
  if (!ctx.json) ctx.err(`sending ${cmd.dir}: ${files} files, ${formatBytes(body.length)} compressed\n`);
  const stream = await call(lab, () =>
    lab.api.POST("/images", {
      params: { query: { tag: cmd.tag } },
      body: body as unknown as string,
      bodySerializer: (b: unknown) => b as string,
      headers: { "content-type": "application/gzip", accept: NDJSON },
      parseAs: "stream",
      signal: ctx.signal,
    }),
  );
  for await (const event of buildEvents(stream as ReadableStream<Uint8Array>)) {
    if (event.type === "step" && !ctx.json) ctx.err(`Step ${event.step}/${event.totalSteps} : ${event.instruction}\n`);
    else if (event.type === "output" && !ctx.json) ctx.err(`  ${event.line}\n`);
    else if (event.type === "result") {
      const { type: _, ...image } = event;
      if (ctx.json) printJson(ctx, image);
      else ctx.out(`built ${image.reference} (${image.id.slice(0, 19)}, ${formatBytes(image.size)}): use it as topology.service.image\n`);
      return EXIT.passed;
    } else if (event.type === "error") {
      throw new CliError(
        `the build of ${cmd.tag} failed: ${event.message}${event.lastLines.length ? `\nits last lines:\n${event.lastLines.map((l) => `  ${l}`).join("\n")}` : ""}`,
        EXIT.failed,
      );
    }
  }
  throw new CliError(`the lab's answer ended before the build's result (the web stopped?)`, EXIT.usage);
}
