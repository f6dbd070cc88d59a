import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./errors";
import { parseAssignment, type Assignment } from "./set";
import { parseThreshold } from "./thresholds";

export type Threshold = Extract<ReturnType<typeof parseThreshold>, { ok: true }>["threshold"];

/** What a definition is sent with: the file, its changes, and whether to wait for its end. */
type Submit = {
  file: string;
  sets: Assignment[];
  thresholds: Threshold[];
  /** --name: the definition's name. */ setName?: string;
  wait: boolean;
  /** --mark-baseline: once it passed, mark it as the baseline of its name (implies --wait). */
  markBaseline: boolean;
};

export const EXPORT_FORMATS = ["csv", "json", "html"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const CSV_TABLES = ["runs", "samples"] as const;

export type Command = { url?: string; json: boolean } & (
  | { name: "help"; topic?: string }
  | ({ name: "run" } & Submit)
  | ({ name: "experiment" } & Submit)
  | { name: "preset-list" }
  | { name: "preset-run"; preset: string; sets: Assignment[]; repetitions?: number; wait: boolean; markBaseline: boolean }
  | { name: "baseline"; action: "set" | "clear"; id: string }
  | { name: "history"; nameOf: string; kind: "run" | "experiment"; limit?: number }
  | { name: "compare"; ids: string[]; baseline?: string }
  | { name: "export"; id: string; format: ExportFormat; out: string; table?: (typeof CSV_TABLES)[number] }
  | { name: "images-push"; dir: string; tag: string }
  | { name: "status" }
  | { name: "engines" }
  | { name: "cancel"; id: string }
  | { name: "token-create"; tokenName: string }
  | { name: "token-list" }
  | { name: "token-revoke"; id: string }
);

type Options = NonNullable<ParseArgsConfig["options"]>;
const GLOBAL: Options = {
  url: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};
const SUBMIT: Options = {
  set: { type: "string", multiple: true },
  threshold: { type: "string", multiple: true },
  name: { type: "string" },
  wait: { type: "boolean" },
  "mark-baseline": { type: "boolean" },
};

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: Options, usage: string): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options: { ...GLOBAL, ...options }, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (err) {
    // node:util says e.g. "Unknown option '--wiat'. To specify a positional argument starting with a '-', …"
    const message = (err instanceof Error ? err.message : String(err)).split(". ")[0]!.replace(/\.$/, "");
    throw new UsageError(`${message}\nusage: ${usage}`);
  }
}

const strings = (v: Values[string]): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const str = (v: Values[string]): string | undefined => (typeof v === "string" ? v : undefined);

function positional(positionals: string[], count: number, names: string, usage: string): string[] {
  if (positionals.length < count) throw new UsageError(`missing ${names}\nusage: ${usage}`);
  if (positionals.length > count) throw new UsageError(`unexpected argument ${positionals[count]}\nusage: ${usage}`);
  return positionals;
}

function thresholdsOf(v: Values[string]): Threshold[] {
  return strings(v).map((text) => {
    const parsed = parseThreshold(text);
    if (!parsed.ok) throw new UsageError(`--threshold ${parsed.error}`);
    return parsed.threshold;
  });
}

export const USAGE = {
  run: "scalelab run <file.json> [--set path=value …] [--threshold 'p95<250' …] [--name <name>] [--wait] [--mark-baseline] [--json]",
  experiment:
    "scalelab experiment <file.json> [--set path=value …] [--threshold 'p95<250' …] [--name <name>] [--wait] [--mark-baseline] [--json]",
  preset:
    "scalelab preset list [--json] | scalelab preset run <name> [--set path=value …] [--repetitions <n>] [--wait] [--mark-baseline] [--json]",
  baseline: "scalelab baseline set|clear <id> [--json]",
  history: "scalelab history <name> [--kind run|experiment] [--limit <n>] [--json]",
  compare: "scalelab compare <id> <id>… [--baseline <id>] [--json]",
  export: "scalelab export <id> --format csv|json|html -o <file> [--table runs|samples]",
  images: "scalelab images push <dir> --tag <name:tag> [--json]",
  status: "scalelab status [--json]",
  engines: "scalelab engines [--json]",
  cancel: "scalelab cancel <id> [--json]",
  token: "scalelab token create <name> | token list | token revoke <id>  [--json]",
} as const;

/** The command a command line asks for; a usage error names what is wrong and how the command is written. */
export function parseCommand(argv: readonly string[]): Command {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") return { name: "help", json: false, topic: rest[0] };
  const common = (values: Values) => ({ url: str(values.url), json: values.json === true });
  const helpFor = (values: Values, topic: string): Command | null => (values.help ? { name: "help", json: false, topic } : null);

  switch (name) {
    case "run":
    case "experiment": {
      const usage = USAGE[name];
      const { values, positionals } = parse(rest, SUBMIT, usage);
      const help = helpFor(values, name);
      if (help) return help;
      const [file] = positional(positionals, 1, "<file.json>", usage);
      return {
        name,
        ...common(values),
        file: file!,
        sets: strings(values.set).map(parseAssignment),
        thresholds: thresholdsOf(values.threshold),
        ...(str(values.name) !== undefined && { setName: str(values.name)! }),
        wait: values.wait === true || values["mark-baseline"] === true,
        markBaseline: values["mark-baseline"] === true,
      } as Command;
    }
    case "preset": {
      const usage = USAGE.preset;
      const { values, positionals } = parse(
        rest,
        { set: SUBMIT.set!, wait: SUBMIT.wait!, "mark-baseline": SUBMIT["mark-baseline"]!, repetitions: { type: "string" } },
        usage,
      );
      const help = helpFor(values, name);
      if (help) return help;
      const [sub, ...args] = positionals;
      if (sub === "list") {
        positional(args, 0, "", usage);
        return { name: "preset-list", ...common(values) };
      }
      if (sub !== "run")
        throw new UsageError(`${sub === undefined ? "preset needs" : `unknown: preset ${sub}; use`} list or run\nusage: ${usage}`);
      const [preset] = positional(args, 1, "the preset's name (scalelab preset list)", usage);
      const reps = str(values.repetitions);
      if (reps !== undefined && !/^\d{1,3}$/.test(reps)) throw new UsageError(`--repetitions ${reps}: a whole number\nusage: ${usage}`);
      return {
        name: "preset-run",
        ...common(values),
        preset: preset!,
        sets: strings(values.set).map(parseAssignment),
        ...(reps !== undefined && { repetitions: Number(reps) }),
        wait: values.wait === true || values["mark-baseline"] === true,
        markBaseline: values["mark-baseline"] === true,
      };
    }
    case "baseline": {
      const usage = USAGE.baseline;
      const { values, positionals } = parse(rest, {}, usage);
      const help = helpFor(values, name);
      if (help) return help;
      const [action, ...args] = positionals;
      if (action !== "set" && action !== "clear")
        throw new UsageError(
          `${action === undefined ? "baseline needs" : `unknown: baseline ${action}; use`} set or clear\nusage: ${usage}`,
        );
      const [id] = positional(args, 1, "the run's or experiment's id", usage);
      return { name: "baseline", ...common(values), action, id: id! };
    }
    case "history": {
      const usage = USAGE.history;
      const { values, positionals } = parse(rest, { kind: { type: "string" }, limit: { type: "string" } }, usage);
      const help = helpFor(values, name);
      if (help) return help;
      const [nameOf] = positional(positionals, 1, "the runs' or experiments' name", usage);
      const kind = str(values.kind) ?? "run";
      if (kind !== "run" && kind !== "experiment") throw new UsageError(`--kind must be run or experiment; got ${kind}\nusage: ${usage}`);
      const limit = str(values.limit);
      if (limit !== undefined && !/^\d{1,3}$/.test(limit))
        throw new UsageError(`--limit ${limit}: a whole number from 1 to 500\nusage: ${usage}`);
      return { name: "history", ...common(values), nameOf: nameOf!, kind, ...(limit !== undefined && { limit: Number(limit) }) };
    }
    case "compare": {
      const usage = USAGE.compare;
      const { values, positionals } = parse(rest, { baseline: { type: "string" } }, usage);
      const help = helpFor(values, name);
      if (help) return help;
      if (positionals.length < 2) throw new UsageError(`compare needs at least two ids\nusage: ${usage}`);
      const baseline = str(values.baseline);
      if (baseline !== undefined && !positionals.includes(baseline)) {
        throw new UsageError(`--baseline ${baseline} is not one of the ids compared\nusage: ${usage}`);
      }
      return { name: "compare", ...common(values), ids: positionals, ...(baseline !== undefined && { baseline }) };
    }
    case "export": {
      const usage = USAGE.export;
      const { values, positionals } = parse(
        rest,
        { format: { type: "string" }, out: { type: "string", short: "o" }, table: { type: "string" } },
        usage,
      );
      const help = helpFor(values, name);
      if (help) return help;
      const [id] = positional(positionals, 1, "the run's or experiment's id", usage);
      const format = str(values.format);
      if (!format || !(EXPORT_FORMATS as readonly string[]).includes(format)) {
        throw new UsageError(`--format must be one of: ${EXPORT_FORMATS.join(", ")}${format ? `; got ${format}` : ""}\nusage: ${usage}`);
      }
      const out = str(values.out);
      if (!out) throw new UsageError(`-o <file> is required (- writes to standard output)\nusage: ${usage}`);
      const table = str(values.table);
      if (table !== undefined && (format !== "csv" || !(CSV_TABLES as readonly string[]).includes(table))) {
        throw new UsageError(`--table is for --format csv: runs or samples\nusage: ${usage}`);
      }
      return {
        name: "export",
        ...common(values),
        id: id!,
        format: format as ExportFormat,
        out,
        ...(table !== undefined && { table: table as (typeof CSV_TABLES)[number] }),
      };
    }
    case "images": {
      const usage = USAGE.images;
      const { values, positionals } = parse(rest, { tag: { type: "string" } }, usage);
      const help = helpFor(values, name);
      if (help) return help;
      const [sub, ...args] = positionals;
      if (sub !== "push")
        throw new UsageError(`${sub === undefined ? "images needs" : `unknown: images ${sub}; use`} push\nusage: ${usage}`);
      const [dir] = positional(args, 1, "<dir>, the build context's directory", usage);
      const tag = str(values.tag);
      if (!tag) throw new UsageError(`--tag <name:tag> is required\nusage: ${usage}`);
      return { name: "images-push", ...common(values), dir: dir!, tag };
    }
    case "token": {
      const usage = USAGE.token;
      const { values, positionals } = parse(rest, {}, usage);
      const help = helpFor(values, name);
      if (help) return help;
      const [sub, ...args] = positionals;
      if (sub === "create")
        return { name: "token-create", ...common(values), tokenName: positional(args, 1, "the token's name", usage)[0]! };
      if (sub === "list") return (positional(args, 0, "", usage), { name: "token-list", ...common(values) });
      if (sub === "revoke")
        return { name: "token-revoke", ...common(values), id: positional(args, 1, "the token's id (scalelab token list)", usage)[0]! };
      throw new UsageError(`${sub === undefined ? "token needs" : `unknown: token ${sub}; use`} create, list or revoke\nusage: ${usage}`);
    }
    case "engines": {
      const usage = USAGE.engines;
      const { values, positionals } = parse(rest, {}, usage);
      const help = helpFor(values, name);
      if (help) return help;
      positional(positionals, 0, "", usage);
      return { name, ...common(values) };
    }
    case "status":
    case "cancel": {
      const usage = USAGE[name];
      const { values, positionals } = parse(rest, {}, usage);
      const help = helpFor(values, name);
      if (help) return help;
      if (name === "status") {
        positional(positionals, 0, "", usage);
        return { name, ...common(values) };
      }
      const [id] = positional(positionals, 1, "the run's or experiment's id", usage);
      return { name, ...common(values), id: id! };
    }
    default:
      throw new UsageError(
        `unknown command ${name}: one of run, experiment, preset, compare, export, images, status, cancel, baseline, history (scalelab --help)`,
      );
  }
}
