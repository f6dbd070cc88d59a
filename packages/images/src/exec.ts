import { childEnv } from "./env";
import { spawn } from "node:child_process";

export type ExecOptions = {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  onLine?: (line: string) => void;
};

/**
 * Runs a host tool (go, debootstrap, tar); rejects with the tail of its output on failure.
 * On abort the tool's whole process group is terminated and the promise settles only once
 * it has exited, so callers can safely clean up what it was writing.
 */
export function execTool(command: string, args: string[], opts: ExecOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const { signal } = opts;
    if (signal?.aborted) return reject(signal.reason);
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env ?? childEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const onAbort = () => {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const tail: string[] = [];
    let stdout = "";
    const collect = (chunk: Buffer, keep: boolean) => {
      const text = chunk.toString();
      if (keep) stdout += text;
      for (const line of text.split("\n")) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 30) tail.shift();
        opts.onLine?.(line);
      }
    };
    child.stdout.on("data", (c: Buffer) => collect(c, true));
    child.stderr.on("data", (c: Buffer) => collect(c, false));
    child.on("error", (err) => {
      signal?.removeEventListener("abort", onAbort);
      reject(new Error(`${command} failed to start: ${err.message}`));
    });
    child.on("close", (code, sig) => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(signal.reason);
      else if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code ?? sig}:\n${tail.join("\n")}`));
    });
  });
}
