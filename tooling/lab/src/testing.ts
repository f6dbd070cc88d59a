import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const cwd = fileURLToPath(new URL("..", import.meta.url));

/** `lab ARGS…` as the lab's host runs it (tsx src/cli.ts): its exit code and output, whatever the code. */
export async function lab(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)("node_modules/.bin/tsx", ["src/cli.ts", ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
