import { setMaxListeners } from "node:events";
import { K6_VERSION } from "@scalelab/images";
import { buildPlan, RunPlan } from "@scalelab/scenarios/plan";
import { nodeWarnings, runWarnings, ZRunCreate, TEngineConfig, TRunStep } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { errorMessage } from "../log";
import { withDeadlines } from "../provisioner/deadlines";
import { provisionerFor } from "../provisioner/factory";
import { watchCancel } from "./cancel";
import { collect } from "./collect";
import { InterferenceWatch, watchInterference } from "./interference";
import { RunStopped, PipelineDeps, RunContext } from "./context";
import { runLoad } from "./load";
import { engineConfig, placeRun, runNodesFacts } from "./placement";
import { prepareImages, ServiceImage } from "./prepare-images";
import { checkScript } from "./script-check";
import { provision, waitHealthy } from "./provision";
import { RunReporter } from "./reporter";
import { teardown } from "./teardown";
import { warmup } from "./warmup";

/** The containers of a user's image run from the id inspected at the start, whatever its tag points to later. */
function pinImage(plan: RunPlan, image: ServiceImage | undefined): RunPlan {
  if (!image) return plan;
  return { ...plan, containers: plan.containers.map((c) => (c.image === image.reference ? { ...c, image: image.id } : c)) };
}

/**
 * Whether the engine's nodes share this machine (TEngineConfig.machines): said so (`shared`), or
 * (`auto`) every node's endpoint is a container of the lab's own engine (scripts/swarm.sh's test
 * cluster of Docker-in-Docker nodes). Then its nodes share this machine's cores, the run's CPU is
 * this machine's, and its host facts say so; otherwise each node's host is read on the node.
 */
async function sharedMachine(deps: PipelineDeps, engine: TEngineConfig) {
  if (engine.machines === "separate") return {};
  if (engine.machines === "auto") {
    const containers = await deps.docker.listContainers();
    const local = new Set(containers.flatMap((c) => Object.values(c.NetworkSettings?.Networks ?? {}).map((n) => n.IPAddress)));
    const hosts = engine.nodes.map((n) => (n.endpoint.startsWith("tcp://") ? new URL(n.endpoint.replace(/^tcp:/, "http:")).hostname : ""));
    if (!hosts.every((h) => local.has(h))) return {};
  }
  const info = (await deps.docker.info()) as { NCPU?: number };
  return { sharedMachine: true, ...(info.NCPU && { cpus: info.NCPU }) };
}

/** A Swarm task's start may pull its image on the node first: 7 Docker calls' time (210 s at 30 s), beyond the provisioner's own 180 s wait for the task. */
const SWARM_START_FACTOR = 7;

/** How often the run's cancel column is polled, as a fallback for a missed cancel message. */
const CANCEL_POLL_MS = 5_000;

export type Outcome =
  | { status: "skipped"; reason: string }
  | { status: "succeeded" | "failed" | "cancelled" | "interrupted"; error: string | null; detail: string | null };

/**
 * Runs one queued run from images to teardown. A run that is not `queued` (a re-delivered job,
 * a run cancelled while waiting) is skipped, so one run never gets two sets of containers.
 * Teardown runs whatever happened before it.
 */
export async function runPipeline(engineDeps: PipelineDeps, runId: string, shutdown: AbortSignal): Promise<Outcome> {
  const { db, log } = engineDeps;
  // The run's engine's provisioner once its engine is read (below); teardown uses whichever it got to.
  let deps = engineDeps;
  const row = await db.run.findUnique({ where: { id: runId } });
  // Deleted while it waited in the queue: nothing to run, nothing to leave behind.
  if (!row) return { status: "skipped", reason: "run does not exist (deleted)" };
  const claimed = await db.run.updateMany({
    where: { id: runId, status: "queued" },
    data: { status: "running", stepDetail: null, error: null, startedAt: new Date() },
  });
  if (claimed.count === 0) {
    log.info("skipping run that is not queued", { runId, status: row.status });
    return { status: "skipped", reason: `run is ${row.status}` };
  }
  const report = new RunReporter(db, engineDeps.pub, runId, log, "queued");
  if (row.cancelRequested) {
    await report.finish("cancelled", "queued", null, "cancelled before it started");
    return { status: "cancelled", error: null, detail: "cancelled before it started" };
  }

  const ctl = new AbortController();
  // Every probe, poll and request of the run listens to this signal (through AbortSignal.any).
  setMaxListeners(0, ctl.signal);
  const onShutdown = () => ctl.abort(new RunStopped("interrupted", "the worker shut down during the run"));
  shutdown.addEventListener("abort", onShutdown, { once: true });
  if (shutdown.aborted) onShutdown();
  let unwatch: (() => Promise<void>) | undefined;
  let interference: InterferenceWatch | undefined;
  let outcome: Exclude<Outcome, { status: "skipped" }> = { status: "failed", error: "the pipeline ended without an outcome", detail: null };
  let endStep: TRunStep = "queued";
  try {
    const onCancel = () => ctl.abort(new RunStopped("cancelled", "cancelled on request"));
    // The cancel message comes over Redis; the column is polled only in case that message is missed.
    unwatch = await watchCancel({ sub: deps.sub, db, runId, log, onCancel, pollMs: CANCEL_POLL_MS });
    // A cancel that came between the read above and the subscription was published to no one: read it now.
    const latest = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true } });
    if (latest?.cancelRequested) onCancel();
    ctl.signal.throwIfAborted();
    const parsed = ZRunCreate.safeParse({
      name: row.name ?? undefined,
      engine: row.engine,
      topology: row.topology,
      workload: row.workload,
      faults: (row.faults as { actual?: unknown }[]).map(({ actual: _, ...f }) => f),
      thresholds: row.thresholds,
    });
    if (!parsed.success) throw new Error(`invalid run definition:\n${z.prettifyError(parsed.error)}`);
    // A Swarm engine's provisioner for this run (the local one stays the worker's own).
    const engine = await engineConfig(db, parsed.data.engine);
    if (engine)
      deps = {
        ...engineDeps,
        provisioner: withDeadlines(provisionerFor(engine, engineDeps.docker), engineDeps.timeouts.dockerCallMs, {
          // A task's start includes its node's first pull from the registry (Swarm's own wait: 180 s).
          startFactor: SWARM_START_FACTOR,
        }),
      };
    const nodes = await deps.provisioner.nodes();
    const ctx: RunContext = { runId, run: parsed.data, deps, report, signal: ctl.signal };

    // Recorded at once (while the images are checked), so a run that fails later still says what it was measured on.
    const recordHost = (async () => {
      const facts = await deps.provisioner.hostFacts();
      await db.run.update({ where: { id: runId }, data: { host: facts } });
      return facts;
    })();
    const checkImages = report.enter("preparing_images").then(() => prepareImages(ctx));
    const [hostSettled, imagesSettled] = await Promise.allSettled([recordHost, checkImages]);
    if (hostSettled.status === "rejected") throw hostSettled.reason;
    if (imagesSettled.status === "rejected") throw imagesSettled.reason;
    const { images, serviceImage } = imagesSettled.value;
    const pinned = pinImage(buildPlan({ runId, instance: deps.instance, run: ctx.run, images }), serviceImage);
    // Each container on its node: placement on a Swarm engine, the one node "local" otherwise.
    const placed = placeRun([...pinned.containers, ...pinned.loadgens], nodes, ctx.run.topology.placement);
    const plan = { ...pinned, containers: placed.slice(0, pinned.containers.length), loadgens: placed.slice(pinned.containers.length) };
    const host = {
      ...hostSettled.value,
      ...(serviceImage && { serviceImage }),
      ...(nodes && runNodesFacts(ctx.run.engine, nodes, placed)),
      ...(engine && (await sharedMachine(engineDeps, engine))),
    };
    if (serviceImage || nodes) await db.run.update({ where: { id: runId }, data: { host } });
    // Said before any container starts, as the preview said it: the containers' CPU limits beyond the host's (or a node's) cores.
    for (const warning of nodes ? nodeWarnings(ctx.run, nodes) : runWarnings(ctx.run, host)) await report.event("warn", warning.message);
    if (engine) {
      // The nodes pull the run's images from the engine's registry: what it lacks is pushed (tags are content hashes).
      const wanted = [...new Set([...plan.containers, ...plan.loadgens].map((c) => c.image))];
      const { pushed, skipped } = await deps.provisioner.prepareImages(wanted, ctl.signal);
      await report.event(
        "info",
        `engine ${engine.name}: pushed ${pushed.length} image(s) to its registry${pushed.length > 0 ? ` (${pushed.join(", ")})` : ""}, ${skipped.length} already there`,
      );
    }
    // Before any container of the topology: a script that does not compile fails the run here.
    ctx.script = await checkScript(ctx, plan);

    // From before the first container starts: whatever happens to them that the run does not do is on its timeline.
    interference = watchInterference(ctx, plan);
    await report.enter("provisioning");
    const { started, last } = await provision(ctx, plan);

    await report.enter("waiting_healthy");
    const topology = await waitHealthy(ctx, plan, last, started);

    await report.enter("warmup");
    await warmup(ctx, topology.entryUrl);

    // On a cluster of separate machines, a probe on each node of the run prints its CPU counters (host
    // noise per node); the lab's host, or nodes that are containers on it, the worker reads itself.
    const nodeCpu =
      engine && !host.sharedMachine
        ? await deps.provisioner.nodeCpuProbes([...new Set(placed.flatMap((c) => (c.node ? [c.node] : [])))], {
            name: `sl-${runId.slice(0, 8)}-cpu`,
            image: plan.loadgens[0]!.image,
            labels: plan.network.labels,
          })
        : undefined;

    await report.enter("running");
    const load = await runLoad(ctx, plan, topology.containers, interference, nodeCpu);

    await report.enter("collecting");
    await collect(ctx, plan, load, { ...host, k6Version: K6_VERSION }, interference.entries());
    // A stop that came after the load (while following the broker's drain) keeps the summary.
    const late = ctl.signal.aborted && ctl.signal.reason instanceof RunStopped ? ctl.signal.reason : undefined;
    outcome = late
      ? { status: late.status, error: null, detail: `${late.message} after the load; its summary is kept` }
      : { status: "succeeded", error: null, detail: null };
    endStep = "done";
  } catch (err) {
    endStep = report.step;
    const stopped = ctl.signal.aborted && ctl.signal.reason instanceof RunStopped ? ctl.signal.reason : undefined;
    outcome = stopped
      ? { status: stopped.status, error: null, detail: `${stopped.message} (during ${endStep})` }
      : { status: "failed", error: errorMessage(err), detail: null };
    if (!stopped) log.warn("run failed", { runId, step: endStep, error: errorMessage(err) });
  } finally {
    shutdown.removeEventListener("abort", onShutdown);
    await unwatch?.();
    // Teardown's removals are the run's own: stop following the engine's events first.
    await interference?.stop();
    const noted = (err: unknown) => log.error("could not record the run's state", { runId, error: errorMessage(err) });
    await report.enter("tearing_down").catch(noted);
    try {
      const removed = await teardown(deps.provisioner, runId);
      await report.event("info", `removed ${removed.containers} container(s) and ${removed.networks} network(s)`).catch(noted);
    } catch (err) {
      // The periodic sweep retries; the run itself must still say what happened.
      log.error("teardown failed", { runId, error: errorMessage(err) });
      await report.event("error", `teardown failed: ${errorMessage(err)}`).catch(noted);
    }
    if (outcome.status === "failed") await report.event("error", `${endStep}: ${outcome.error}`, endStep).catch(noted);
    else if (outcome.detail) await report.event("warn", `${outcome.status}: ${outcome.detail}`, endStep).catch(noted);
    // The final state must land, or the run would show as live forever: retry, then fail the job.
    for (let attempt = 1; ; attempt++) {
      try {
        await report.finish(outcome.status, endStep, outcome.error, outcome.detail);
        break;
      } catch (err) {
        noted(err);
        // Its row was deleted outright meanwhile: there is nothing left to record the end in.
        if ((await db.run.count({ where: { id: runId } }).catch(() => 1)) === 0) {
          log.warn("the run's row is gone; its end is not recorded", { runId });
          break;
        }
        if (attempt === 5) throw new Error(`could not record the end of run ${runId}: ${errorMessage(err)}`);
        await new Promise((r) => setTimeout(r, 1000 * attempt));
      }
    }
  }
  return outcome;
}
