import { cli } from "./cli";
import { readEnv } from "./env";

// `scalelab …` (bin/scalelab.js, or `pnpm scalelab …` from the repository's root).
const ac = new AbortController();
// The first Ctrl-C stops waiting (the run goes on: cli says how to cancel it); a second one ends the process at once.
process.once("SIGINT", () => ac.abort());

const err = (text: string) => process.stderr.write(text);
process.exitCode = await cli(process.argv.slice(2), {
  env: readEnv(),
  out: (text) => process.stdout.write(text),
  err,
  tty: process.stderr.isTTY === true,
  signal: ac.signal,
});
