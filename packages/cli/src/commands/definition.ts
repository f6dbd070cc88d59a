import { readFile } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../errors";

/** A definition file (a run's or an experiment's JSON), relative to where the command was typed. */
export async function readDefinition(file: string, cwd: string): Promise<Record<string, unknown>> {
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(full, "utf8");
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new UsageError(`${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError(`${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}
