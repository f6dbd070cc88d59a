/**
 * GOMAXPROCS for a testbed container: the given threads, else one per CPU of its limit rounded up,
 * as the JVM and .NET size themselves in a container (Go 1.25 too, with at least 2); a 0.2-CPU replica with one thread
 * per host CPU would spend its quota on idle scheduler threads. No limit: the runtime's default.
 */
export function runtimeThreads(threads: number | undefined, cpus: number | undefined): Record<string, string> {
  const n = threads ?? (cpus === undefined ? undefined : Math.ceil(cpus));
  return n === undefined ? {} : { TESTBED_THREADS: String(n) };
}
