import { parseEnv } from "./env";
import { createLogger, errorMessage } from "./log";
import { start } from "./worker";

const log = createLogger();
try {
  const handle = await start({ env: parseEnv(), log });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      log.info(`${signal}: stopping`);
      handle.close().then(
        () => process.exit(0),
        (err) => {
          log.error("shutdown failed", { error: errorMessage(err) });
          process.exit(1);
        },
      );
    });
  }
} catch (err) {
  log.error(errorMessage(err));
  process.exit(1);
}
