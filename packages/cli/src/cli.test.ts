import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cli, HELP } from "./cli";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "scalelab-cli-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The CLI with its output captured; no request leaves (every case here fails or answers before one). */
async function run(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await cli(argv, {
    env: { url: "http://127.0.0.1:9", token: undefined, cwd: dir },
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    tty: false,
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

describe("cli", () => {
  it("documents every exit code in --help", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(HELP);
    for (const code of ["0  done: passed", "1  a threshold", "2  the run or experiment failed", "3  usage error", "130  Ctrl-C"]) {
      expect(HELP).toContain(code);
    }
  });

  it("is exit 3 for a usage error, on stderr, pointing at the help", async () => {
    const r = await run(["launch"]);
    expect(r).toEqual({
      code: 3,
      stdout: "",
      stderr:
        "scalelab: unknown command launch: one of run, experiment, preset, compare, export, images, status, cancel, baseline, history (scalelab --help)\n",
    });
  });

  it("reads the definition file relative to where the command was typed, before asking the lab anything", async () => {
    expect((await run(["run", "nope.json"])).stderr).toMatch(/^scalelab: nope\.json: no such file/);
    await writeFile(path.join(dir, "bad.json"), "{ nope");
    expect((await run(["run", "bad.json"])).stderr).toMatch(/^scalelab: bad\.json is not valid JSON/);
    await writeFile(path.join(dir, "list.json"), "[1]");
    expect((await run(["experiment", "list.json"])).stderr).toMatch(/list\.json must hold a JSON object/);
    await writeFile(path.join(dir, "run.json"), JSON.stringify({ topology: {}, workload: {} }));
    const r = await run(["run", "run.json", "--set", "topology.servise.replicas=3"]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^scalelab: --set topology\.servise\.replicas: topology has no field servise \(fields: balancer, service, /);
  });

  it("with --json, an error is also a JSON object on stdout", async () => {
    const r = await run(["run", "nope.json", "--json"]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toEqual({ error: "nope.json: no such file", exitCode: 3 });
  });
});
