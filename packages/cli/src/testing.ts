import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The CLI as a user runs it (bin/scalelab.js), for the integration tests. */
export const BIN = fileURLToPath(new URL("../bin/scalelab.js", import.meta.url));

/** What a child process left: its exit code and all it wrote. */
export type Result = { code: number | null; stdout: string; stderr: string };

/** Runs a command to its end, collecting its output (and passing stderr on as it comes, when asked). */
export function runCommand(
  command: string,
  args: readonly string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; onStderr?: (text: string) => void },
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: opts.cwd, env: opts.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      opts.onStderr?.(c.toString());
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A failed expectation's context: the exit code and the start of both outputs. */
export const explain = (r: Result, stderrChars = 2000) =>
  `exit ${r.code}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, stderrChars)}`;
