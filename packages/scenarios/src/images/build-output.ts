import { z } from "zod";

/** How many of the build's last output lines a failure reports. */
export const LAST_LINES = 20;
/** Longer output lines are cut here, so one huge line cannot fill a response. */
export const MAX_LINE_LENGTH = 4_000;

/**
 * One line of `POST /images` with `Accept: application/x-ndjson`: the build's steps and output
 * lines as they happen, then exactly one `result` or `error`.
 */
export const ZImageBuildEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("step"), step: z.number().int(), totalSteps: z.number().int(), instruction: z.string() }),
  z.object({ type: z.literal("output"), line: z.string() }),
  z.object({ type: z.literal("result"), reference: z.string(), id: z.string(), size: z.number() }),
  z.object({ type: z.literal("error"), message: z.string(), lastLines: z.array(z.string()) }),
]);
export type TImageBuildEvent = z.infer<typeof ZImageBuildEvent>;

/** Splits text that arrives in chunks into lines; a line cut between chunks is held until its end arrives. */
export class LineSplitter {
  private partial = "";

  push(text: string): string[] {
    const parts = (this.partial + text).split("\n");
    this.partial = parts.pop()!;
    return parts.map((l) => l.replace(/\r$/, ""));
  }

  /** The last line when the text did not end with a newline. */
  end(): string[] {
    const rest = this.partial;
    this.partial = "";
    return rest ? [rest.replace(/\r$/, "")] : [];
  }
}

/** A message of the engine's build stream (`POST /build`), the fields used here. */
export type DockerBuildMessage = {
  stream?: string;
  status?: string;
  id?: string;
  progressDetail?: unknown;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
};

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
const STEP = /^Step (\d+)\/(\d+) : (.*)$/;

const clip = (line: string) => (line.length > MAX_LINE_LENGTH ? `${line.slice(0, MAX_LINE_LENGTH)}…` : line);

/**
 * Reads the engine's build stream message by message (the classic builder's, which the API runs):
 * each output line becomes an `output` event, a `Step 2/3 : RUN …` line a `step` event; it keeps
 * the last LAST_LINES lines, the image id the engine reports (`aux.ID`) and the build's error.
 */
export class BuildLog {
  private readonly lines = new LineSplitter();
  private readonly tail: string[] = [];
  imageId: string | undefined;
  failure: string | undefined;

  constructor(private readonly keep = LAST_LINES) {}

  accept(message: DockerBuildMessage): TImageBuildEvent[] {
    const events: TImageBuildEvent[] = [];
    if (message.aux?.ID) this.imageId = message.aux.ID;
    if (message.stream) events.push(...this.lines.push(message.stream).flatMap((l) => this.line(l)));
    // Pull progress (a FROM the engine does not have yet): its status lines, not its progress bars.
    if (message.status && message.progressDetail === undefined) {
      events.push(...this.line(message.id ? `${message.id}: ${message.status}` : message.status));
    }
    const error = message.errorDetail?.message ?? message.error;
    if (error !== undefined) {
      events.push(...this.lines.end().flatMap((l) => this.line(l)));
      this.failure ??= error.replace(ANSI, "").trim() || "the build failed";
      events.push(...this.line(this.failure));
    }
    return events;
  }

  /** What is left when the stream ends without a newline. */
  end(): TImageBuildEvent[] {
    return this.lines.end().flatMap((l) => this.line(l));
  }

  lastLines(): string[] {
    return [...this.tail];
  }

  private line(raw: string): TImageBuildEvent[] {
    const line = clip(raw.replace(ANSI, "").trimEnd());
    if (!line.trim()) return [];
    this.tail.push(line);
    if (this.tail.length > this.keep) this.tail.shift();
    const step = STEP.exec(line.trim());
    if (step) return [{ type: "step", step: Number(step[1]), totalSteps: Number(step[2]), instruction: step[3]! }];
    return [{ type: "output", line }];
  }
}

/** Parses a JSON line of a stream; null for a blank line, or a line that is not JSON. */
export function parseJsonLine(line: string): unknown {
  if (!line.trim()) return null;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
}
