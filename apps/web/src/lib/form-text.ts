/**
 * The run form's text fields for objects and lists, read line by line: a user's environment
 * (`NAME=value`), command (one argv item per line) and request headers (`Name: value`). Each
 * parser keeps the line every entry came from, so an issue the schema finds in an entry
 * (`topology.service.env.PORT`) can name its line; a line it cannot read is an issue naming it.
 * What a name or value must be is the schema's to say, not these parsers'.
 */

import { parseThreshold, type TThreshold } from "@scalelab/scenarios/contract";

/** Where each entry was written: its 1-based line. */
export type Parsed<T, K extends string | number> = { value: T; lines: Record<K, number>; issues: string[] };

const linesOf = (text: string) => text.split(/\r?\n/);
const blank = (line: string) => line.trim() === "" || line.trimStart().startsWith("#");

/** `NAME=value` per line (the value is everything after the first `=`, as it is); blank lines and `# comments` are skipped. */
export function parseEnv(text: string): Parsed<Record<string, string>, string> {
  const value: Record<string, string> = {};
  const lines: Record<string, number> = {};
  const issues: string[] = [];
  linesOf(text).forEach((line, i) => {
    if (blank(line)) return;
    const at = line.indexOf("=");
    const name = at < 0 ? "" : line.slice(0, at).trim();
    if (!name) {
      issues.push(`Environment, line ${i + 1}: NAME=value expected`);
      return;
    }
    if (Object.hasOwn(lines, name)) {
      issues.push(`Environment, line ${i + 1}: ${name} is already set on line ${lines[name]}`);
      return;
    }
    value[name] = line.slice(at + 1);
    lines[name] = i + 1;
  });
  return { value, lines, issues };
}

/**
 * One argv item per line, trimmed; blank lines are skipped (an empty text is the image's own
 * command). There is no shell: a first line with spaces would be taken for a program of that
 * name, so it is an issue.
 */
export function parseCommand(text: string): Parsed<string[], number> {
  const value: string[] = [];
  const lines: Record<number, number> = {};
  const issues: string[] = [];
  linesOf(text).forEach((line, i) => {
    const item = line.trim();
    if (!item) return;
    if (value.length === 0 && /\s/.test(item)) {
      issues.push(
        `Command, line ${i + 1}: one argv item per line, no shell: put ${JSON.stringify(item.split(/\s+/)[0])} and each of its arguments on a line of its own`,
      );
    }
    lines[value.length] = i + 1;
    value.push(item);
  });
  return { value, lines, issues };
}

/** `Name: value` per line (both trimmed); blank lines and `# comments` are skipped; a name twice (in any case) is an issue. */
export function parseHeaders(text: string): Parsed<Record<string, string>, string> {
  const value: Record<string, string> = {};
  const lines: Record<string, number> = {};
  const seen = new Map<string, number>();
  const issues: string[] = [];
  linesOf(text).forEach((line, i) => {
    if (blank(line)) return;
    const at = line.indexOf(":");
    const name = at < 0 ? "" : line.slice(0, at).trim();
    if (!name) {
      issues.push(`Headers, line ${i + 1}: Name: value expected`);
      return;
    }
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) {
      issues.push(`Headers, line ${i + 1}: ${name} is already set on line ${first}`);
      return;
    }
    seen.set(name.toLowerCase(), i + 1);
    value[name] = line.slice(at + 1).trim();
    lines[name] = i + 1;
  });
  return { value, lines, issues };
}

/** Thresholds, one per line in their text form (`p95<250`, scenarios contract/thresholds.ts parseThreshold); blank lines and `# comments` are skipped. */
export function parseThresholds(text: string): Parsed<TThreshold[], number> {
  const value: TThreshold[] = [];
  const lines: Record<number, number> = {};
  const issues: string[] = [];
  linesOf(text).forEach((line, i) => {
    if (blank(line)) return;
    const parsed = parseThreshold(line);
    if (!parsed.ok) {
      issues.push(`Thresholds, line ${i + 1}: ${parsed.error}`);
      return;
    }
    lines[value.length] = i + 1;
    value.push(parsed.threshold);
  });
  return { value, lines, issues };
}
