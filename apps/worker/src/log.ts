export type Logger = {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

export function createLogger(name = "worker"): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    const line = `${new Date().toISOString()} ${level} [${name}] ${message}${fields ? ` ${JSON.stringify(fields)}` : ""}`;
    (level === "error" ? console.error : console.log)(line);
  };
  return { info: write("info"), warn: write("warn"), error: write("error") };
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
