import { CONTAINER_FAULTS } from "../contract/faults";
import { InterferenceAction, TInterference } from "../contract/results";
import { LOADGEN_ROLE } from "../names";

/**
 * Outside interference: what the engine reports of a run's containers (stopped, killed, died,
 * paused, started) that the run's own fault timeline did not do. The worker follows the engine's
 * events from the first container's start until teardown and hands each one to an
 * `InterferenceReader` together with the timeline's own actions; the reader says which events are
 * someone else's doing (a `docker stop`, a crash, the OOM killer) and what to write about them.
 */

export type ContainerFault = (typeof CONTAINER_FAULTS)[number];

/** The engine's container events the watch follows. */
export const ENGINE_EVENTS = ["start", "die", "kill", "stop", "oom", "restart", "pause", "unpause"] as const;
export type EngineEventAction = (typeof ENGINE_EVENTS)[number];

/** One container event as the engine reported it; `oomKilled` from an inspect right after a `die`. */
export type EngineEvent = {
  container: string;
  action: EngineEventAction;
  /** The engine's time of the event, unix ms. */
  atMs: number;
  exitCode?: number;
  signal?: number;
  oomKilled?: boolean;
};

/**
 * What the engine reports for each action the run itself takes on a container (Docker 20.10–27:
 * a stop is a SIGTERM `kill`, a second `kill` with SIGKILL after the grace, `die`, `stop`; a
 * restart adds `start` and `restart`).
 */
export const OWN_ACTION_EVENTS: Record<ContainerFault, readonly EngineEventAction[]> = {
  stop: ["kill", "die", "stop"],
  kill: ["kill", "die"],
  restart: ["kill", "die", "stop", "start", "restart"],
  start: ["start"],
  pause: ["pause"],
  unpause: ["unpause"],
};

/**
 * An own action's events are stamped by the engine's clock while the worker times its call by its
 * own: the same host's clock, but an event may be stamped a little before the call is recorded or
 * after its answer is read.
 */
export const OWN_ACTION_SLACK_MS = 1_000;
/** A kill explains a death this long after it (a stop's grace is 10 s before its SIGKILL). */
const KILL_EXPLAINS_MS = 15_000;
/** An out-of-memory kill explains a death this long after it. */
const OOM_EXPLAINS_MS = 2_000;

/** An action of the run's own fault timeline on a container: from the call to the engine's answer (absent while it is pending). */
export type OwnAction = { container: string; action: ContainerFault; fromMs: number; untilMs?: number };

/** Whether one of the run's own actions accounts for the event: the same container, an event the action causes, within its window. */
export function isOwnEvent(e: EngineEvent, own: readonly OwnAction[], slackMs = OWN_ACTION_SLACK_MS): boolean {
  return own.some(
    (a) =>
      a.container === e.container &&
      OWN_ACTION_EVENTS[a.action].includes(e.action) &&
      e.atMs >= a.fromMs - slackMs &&
      (a.untilMs === undefined || e.atMs <= a.untilMs + slackMs),
  );
}

export type WatchedContainer = { name: string; title: string; role: string };

/** What to write on the run's timeline; `lastOutput`: the container died on its own, its last lines say why. */
export type InterferenceNotice = { message: string; lastOutput: boolean };

type Incident = Omit<TInterference, "at" | "until"> & { atMs: number; untilMs?: number };

type State = {
  /** Stopped or exited (by anyone) and not started since. */
  down: boolean;
  /** The first kill of the current stop sequence and who sent it. */
  kill?: { atMs: number; signal?: number; own: boolean };
  oomAtMs?: number;
  /** The outside incident that holds the container down or paused, until it runs again. */
  open?: Incident;
};

const seconds = (ms: number) => Math.round(ms / 100) / 10;

export class InterferenceReader {
  private readonly containers = new Map<string, WatchedContainer>();
  private readonly states = new Map<string, State>();
  private readonly own: OwnAction[] = [];
  private readonly incidents: Incident[] = [];
  private loadStartMs: number | undefined;

  constructor(containers: readonly WatchedContainer[]) {
    for (const c of containers) this.containers.set(c.name, c);
  }

  /** The run's fault timeline is about to act on a container; call `done` with the time the engine answered. */
  ownAction(container: string, action: ContainerFault, fromMs: number): { done(untilMs: number): void } {
    const a: OwnAction = { container, action, fromMs };
    this.own.push(a);
    return { done: (untilMs) => void (a.untilMs = untilMs) };
  }

  /** The load started (unix ms): times are said from then on. */
  begin(loadStartMs: number): void {
    this.loadStartMs ??= loadStartMs;
  }

  /** Takes the engine's next event of the run; returns what to write when it is interference (or ends one). */
  push(e: EngineEvent): InterferenceNotice | undefined {
    const c = this.containers.get(e.container) ?? { name: e.container, title: e.container, role: "unknown" };
    const s = this.state(e.container);
    const own = isOwnEvent(e, this.own);
    switch (e.action) {
      case "kill": {
        const sequence = s.kill && e.atMs - s.kill.atMs <= KILL_EXPLAINS_MS && s.kill.own === own;
        if (!sequence) s.kill = { atMs: e.atMs, own, ...(e.signal !== undefined && { signal: e.signal }) };
        return undefined;
      }
      case "oom": {
        s.oomAtMs = e.atMs;
        this.incidents.push({ ...this.base(c), action: "oom", atMs: e.atMs });
        return {
          message: `a process of ${c.title} was killed for lack of memory ${this.when(e.atMs)} (the kernel's OOM killer, at the container's memory limit)`,
          lastOutput: false,
        };
      }
      case "die":
        return this.died(c, s, e, own);
      case "start": {
        const wasDown = s.down;
        s.down = false;
        s.kill = undefined;
        // A first start is the pipeline's own (provisioning, the load generators).
        if (!wasDown) return undefined;
        return this.resumed(c, s, e, own, "started", "stopped");
      }
      case "pause": {
        if (own) return undefined;
        const incident: Incident = { ...this.base(c), action: "pause", atMs: e.atMs };
        this.incidents.push(incident);
        s.open = incident;
        return { message: `${c.title} was paused from outside the run ${this.when(e.atMs)}`, lastOutput: false };
      }
      case "unpause":
        return this.resumed(c, s, e, own, "unpaused", "paused");
      case "stop":
      case "restart":
        // The `die` before a stop and the `start` before a restart said it.
        return undefined;
    }
  }

  /** The incidents so far, in seconds from the load's start; none before the load started. */
  entries(): TInterference[] {
    const start = this.loadStartMs;
    if (start === undefined) return [];
    return this.incidents.map(({ atMs, untilMs, ...i }) => ({
      ...i,
      at: seconds(atMs - start),
      ...(untilMs !== undefined && { until: seconds(untilMs - start) }),
    }));
  }

  private died(c: WatchedContainer, s: State, e: EngineEvent, own: boolean): InterferenceNotice | undefined {
    s.down = true;
    const kill = s.kill && e.atMs - s.kill.atMs <= KILL_EXPLAINS_MS ? s.kill : undefined;
    s.kill = undefined;
    if (own || kill?.own) return undefined;
    const oomEvent = s.oomAtMs !== undefined && e.atMs - s.oomAtMs <= OOM_EXPLAINS_MS;
    const oomKilled = e.oomKilled === true || oomEvent;
    // A load generator ends by itself when its load is done; the load step checks its exit code.
    if (!kill && !oomKilled && c.role === LOADGEN_ROLE) return undefined;
    const action: InterferenceAction = kill ? (kill.signal === 15 ? "stop" : "kill") : oomKilled ? "oom" : "crash";
    const facts = {
      ...(e.exitCode !== undefined && { exitCode: e.exitCode }),
      oomKilled,
      ...(kill?.signal !== undefined && { signal: kill.signal }),
    };
    // The death the OOM kill just announced: the same incident, now with its exit.
    const announced = oomEvent ? this.incidents.findLast((i) => i.container === c.name && i.action === "oom") : undefined;
    const incident: Incident =
      announced && action === "oom" ? Object.assign(announced, facts) : { ...this.base(c), action, atMs: e.atMs, ...facts };
    if (incident !== announced) this.incidents.push(incident);
    s.open = incident;
    const exit = `exit code ${e.exitCode ?? "unknown"}, ${oomKilled ? "OOM-killed" : "not OOM-killed"}`;
    const when = this.when(e.atMs);
    switch (action) {
      case "stop":
        return { message: `${c.title} was stopped from outside the run ${when} (${exit})`, lastOutput: false };
      case "kill":
        return {
          message: `${c.title} was killed from outside the run (signal ${kill?.signal ?? "unknown"}) ${when} (${exit})`,
          lastOutput: false,
        };
      case "oom":
        return { message: `${c.title} was killed for lack of memory ${when} (${exit})`, lastOutput: true };
      default:
        return {
          message: `${c.title} ${e.exitCode === 0 ? "exited" : "crashed"} on its own ${when}, not stopped by the run nor from outside (${exit})`,
          lastOutput: true,
        };
    }
  }

  /** A start or unpause: ends the incident that held the container, or is one itself when the timeline held it. */
  private resumed(
    c: WatchedContainer,
    s: State,
    e: EngineEvent,
    own: boolean,
    verb: "started" | "unpaused",
    held: "stopped" | "paused",
  ): InterferenceNotice | undefined {
    const open = s.open;
    const ends = open && (verb === "unpaused" ? open.action === "pause" : open.action !== "pause");
    if (open && ends) {
      s.open = undefined;
      open.untilMs = e.atMs;
      const by = own ? "by the run's fault timeline" : "from outside the run";
      return {
        message: `${c.title} was ${verb} again ${by} ${this.when(e.atMs)}, ${seconds(e.atMs - open.atMs)} s after it ${open.action === "pause" ? "was paused" : "went down"}`,
        lastOutput: false,
      };
    }
    if (own) return undefined;
    const incident: Incident = { ...this.base(c), action: verb === "started" ? "start" : "unpause", atMs: e.atMs };
    this.incidents.push(incident);
    return {
      message: `${c.title} was ${verb} from outside the run ${this.when(e.atMs)}, while the run's fault timeline had it ${held}`,
      lastOutput: false,
    };
  }

  private base(c: WatchedContainer) {
    return { container: c.name, title: c.title, role: c.role };
  }

  private state(name: string): State {
    let s = this.states.get(name);
    if (!s) this.states.set(name, (s = { down: false }));
    return s;
  }

  private when(atMs: number): string {
    if (this.loadStartMs === undefined) return "before the load started";
    const t = seconds(atMs - this.loadStartMs);
    return t < 0 ? `${-t} s before the load started` : `at ${t} s of the load`;
  }
}

/** Whole seconds; a span is the difference of its shown ends, so "for 5 s (from 4 s to 9 s)" always adds up. */
const whole = (s: number) => Math.round(s);

/** Whether the incident touched the measured load (`durationSeconds` when known). */
export function affectsLoad(i: TInterference, durationSeconds?: number): boolean {
  if (durationSeconds !== undefined && i.at >= durationSeconds) return false;
  return i.until === undefined || i.until > 0;
}

/** One incident as the finding says it: `replica app-0 was stopped from outside for 9 s (from 12 s to 21 s)`. */
export function interferencePhrase(i: TInterference): string {
  const span =
    i.until !== undefined
      ? ` for ${whole(i.until) - whole(Math.max(0, i.at))} s (from ${i.at < 0 ? "before the load" : `${whole(i.at)} s`} to ${whole(i.until)} s)`
      : ` from ${i.at < 0 ? "before the load" : `${whole(i.at)} s`} to the end of the load`;
  const exit = i.exitCode !== undefined ? ` (exit code ${i.exitCode})` : "";
  switch (i.action) {
    case "stop":
      return `${i.title} was stopped from outside${span}`;
    case "kill":
      return `${i.title} was killed from outside${exit}${span}`;
    case "crash":
      return `${i.title} ${i.exitCode === 0 ? "exited on its own" : "crashed"}${exit} and was down${span}`;
    case "oom":
      return i.exitCode === undefined
        ? `a process of ${i.title} was killed for lack of memory at ${whole(i.at)} s`
        : `${i.title} was killed for lack of memory${exit}${span}`;
    case "pause":
      return `${i.title} was paused from outside${span}`;
    case "start":
      return `${i.title} was started from outside at ${whole(i.at)} s while the fault timeline had it stopped`;
    case "unpause":
      return `${i.title} was unpaused from outside at ${whole(i.at)} s while the fault timeline had it paused`;
  }
}
