/** A statement of a script: its text (without the closing `;`) and the line it starts on (1-based). */
export type ScriptStatement = { text: string; line: number };

/** The lexical rules of the script: Postgres's SQL or Cassandra's CQL. */
export type ScriptDialect = "sql" | "cql";

const IDENT = /[A-Za-z0-9_]/;
const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Splits a script into its statements at the `;` that are code, as psql and cqlsh do before they
 * send a statement at a time: not in a string ('…' with '' escapes; SQL's E'…' with backslash
 * escapes), a quoted name ("…" with ""), a dollar-quoted string (SQL `$tag$…$tag$`, CQL `$$…$$`)
 * or a comment (`--` and `/* … *\/`, nested in SQL; CQL's `//`). A CQL `BEGIN BATCH … APPLY BATCH`
 * and an SQL `BEGIN ATOMIC … END` body are one statement. Statements holding only comments are
 * left out; an unterminated string or comment is an error naming its line.
 */
export function splitStatements(script: string, dialect: ScriptDialect): ScriptStatement[] {
  const out: ScriptStatement[] = [];
  let line = 1;
  // The current statement: where its code starts (-1: none yet), its line, and its code with strings and comments blanked.
  let start = -1;
  let startLine = 0;
  let code = "";
  const begin = (i: number) => {
    if (start < 0) {
      start = i;
      startLine = line;
    }
  };
  const finish = (end: number) => {
    if (start >= 0) out.push({ text: script.slice(start, end).trim(), line: startLine });
    start = -1;
    code = "";
  };
  /** Advances over script[from, to), counting lines. */
  const skip = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (script[k] === "\n") line++;
    return to;
  };
  const unterminated = (what: string, at: number): never => {
    throw new Error(`${what} starting on line ${at} is not closed`);
  };

  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    const next = script[i + 1];
    const prev = i > 0 ? script[i - 1]! : "";
    if (c === "-" && next === "-") {
      const end = script.indexOf("\n", i);
      i = end < 0 ? script.length : end;
    } else if (dialect === "cql" && c === "/" && next === "/") {
      const end = script.indexOf("\n", i);
      i = end < 0 ? script.length : end;
    } else if (c === "/" && next === "*") {
      const at = line;
      let depth = 1;
      let k = i + 2;
      while (depth > 0) {
        if (k >= script.length) unterminated("a /* comment", at);
        if (script[k] === "*" && script[k + 1] === "/") {
          depth--;
          k += 2;
        } else if (dialect === "sql" && script[k] === "/" && script[k + 1] === "*") {
          depth++;
          k += 2;
        } else k++;
      }
      i = skip(i, k);
      code += " ";
    } else if (c === "'") {
      begin(i);
      // E'…' (SQL): backslash escapes, unless the E ends a longer name.
      const escapes = dialect === "sql" && /[eE]/.test(prev) && !IDENT.test(i > 1 ? script[i - 2]! : "");
      const at = line;
      let k = i + 1;
      for (;;) {
        if (k >= script.length) unterminated("a string", at);
        if (escapes && script[k] === "\\") k += 2;
        else if (script[k] === "'" && script[k + 1] === "'") k += 2;
        else if (script[k] === "'") break;
        else k++;
      }
      i = skip(i, k + 1);
      code += " ";
    } else if (c === '"') {
      begin(i);
      const at = line;
      let k = i + 1;
      for (;;) {
        if (k >= script.length) unterminated("a quoted name", at);
        if (script[k] === '"' && script[k + 1] === '"') k += 2;
        else if (script[k] === '"') break;
        else k++;
      }
      i = skip(i, k + 1);
      code += " ";
    } else if (c === "$" && !IDENT.test(prev) && dollarTag(script, i, dialect)) {
      begin(i);
      const tag = dollarTag(script, i, dialect)!;
      const at = line;
      const end = script.indexOf(tag, i + tag.length);
      if (end < 0) unterminated(`a ${tag} string`, at);
      i = skip(i, end + tag.length);
      code += " ";
    } else if (c === ";") {
      if (continues(code, dialect)) {
        code += c;
        i++;
      } else {
        finish(i);
        i++;
      }
    } else {
      if (!/\s/.test(c)) begin(i);
      if (c === "\n") line++;
      if (start >= 0) code += c;
      i++;
    }
  }
  finish(script.length);
  return out.filter((s) => s.text.length > 0);
}

function dollarTag(script: string, i: number, dialect: ScriptDialect): string | undefined {
  if (dialect === "cql") return script.startsWith("$$", i) ? "$$" : undefined;
  return DOLLAR_TAG.exec(script.slice(i, i + 66))?.[0];
}

/** A `;` inside a CQL batch or an SQL-standard function body does not end the statement. */
function continues(code: string, dialect: ScriptDialect): boolean {
  if (dialect === "cql") return /^\s*BEGIN\s+(?:UNLOGGED\s+|COUNTER\s+)?BATCH\b/i.test(code) && !/\bAPPLY\s+BATCH\s*$/i.test(code);
  if (!/\bBEGIN\s+ATOMIC\b/i.test(code)) return false;
  const after = code.slice(code.search(/\bBEGIN\s+ATOMIC\b/i));
  const opened = after.match(/\b(?:BEGIN|CASE)\b/gi)?.length ?? 0;
  const closed = after.match(/\bEND\b/gi)?.length ?? 0;
  return opened > closed;
}

/** How an error names a statement: its number and the start of its first line. */
export function describeStatement(s: ScriptStatement, index: number): string {
  const first = s.text.split("\n")[0]!.trim();
  const short = first.length > 60 ? `${first.slice(0, 60).trimEnd()} …` : first;
  return `statement ${index + 1} (line ${s.line}: ${short}${s.text.includes("\n") && short === first ? " …" : ""})`;
}
