import { previewFiles, K6_SCRIPT_PATH, NGINX_CONF_PATH } from "@scalelab/scenarios/plan";
import { placeContainers, topologyDiagram, type Diagram, type DiagramPlacement, type RunPlan } from "@scalelab/scenarios/plan";
import { nodeWarnings, runWarnings, ZRunCreate, ZRunWarning, type TEngineNode, type TRunCreate } from "@scalelab/scenarios/contract";
import { z } from "zod";
import { shownPlan } from "~/lib/plan";
import { readHostBounds } from "../runs/service";
import { engineNodes } from "../engines/service";
import type { Deps } from "../runtime";
import { procedure, router } from "../trpc";

export const ZPreviewFile = z.object({
  title: z.string().describe("e.g. nginx.conf, k6 script, server.properties, cassandra.yaml, schema"),
  container: z.string(),
  path: z.string(),
  content: z.string(),
});

export const ZDiagram = z.object({
  nodes: z.array(
    z.object({ id: z.string(), role: z.string(), label: z.string(), color: z.string(), limits: z.string(), x: z.number(), y: z.number() }),
  ),
  edges: z.array(z.object({ from: z.string(), to: z.string(), kind: z.enum(["http", "sync", "async", "query"]) })),
  width: z.number(),
  height: z.number(),
  groups: z
    .array(z.object({ name: z.string(), label: z.string(), y: z.number(), height: z.number() }))
    .optional()
    .describe("on an engine with several nodes: one band per node, the containers placed on it inside"),
}) satisfies z.ZodType<Diagram>;

export const ZPreview = z.object({
  nginxConf: z.string(),
  k6Script: z.string(),
  /** Every file the worker writes into the run's containers. */
  files: z.array(ZPreviewFile),
  diagram: ZDiagram.describe("the topology laid out left to right along the request path"),
  warnings: z
    .array(ZRunWarning)
    .describe("what the lab accepts but says before the run starts, e.g. containers' CPU limits adding up to more than the host's cores"),
});

/** The files the worker will write into the run's containers and the topology's diagram, from the same plan. */
export function renderPreview(run: TRunCreate, nodes: readonly TEngineNode[] | null = null): Omit<z.infer<typeof ZPreview>, "warnings"> {
  const plan = shownPlan(run);
  const files = previewFiles(plan);
  const contentOf = (path: string) => files.find((f) => f.path === path)?.content ?? "";
  return {
    nginxConf: contentOf(NGINX_CONF_PATH),
    k6Script: contentOf(K6_SCRIPT_PATH),
    files,
    diagram: topologyDiagram(plan, placementFor(plan, nodes, run)),
  };
}

/** Where the worker would place the plan's containers on the engine's nodes (none on local, or when placement cannot be met: creating the run says why). */
function placementFor(plan: RunPlan, nodes: readonly TEngineNode[] | null, run: TRunCreate): DiagramPlacement | undefined {
  if (!nodes?.length) return undefined;
  const placed = placeContainers([...plan.loadgens, ...plan.containers], nodes, run.topology.placement);
  return placed.ok ? { containerNodes: placed.nodes, nodes } : undefined;
}

export const previewRouter = router({
  render: procedure
    .meta({
      openapi: {
        method: "POST",
        path: "/preview",
        tags: ["runs"],
        protect: false,
        summary:
          "Every file a run would write into its containers (nginx.conf, k6 script, broker and store configs), its diagram, and warnings on this host",
        errorResponses: [400],
      },
    })
    .input(ZRunCreate)
    .output(ZPreview)
    .query(async ({ ctx, input }) => {
      // The engine's nodes once, for both; none when it cannot be read now (creating the run says why).
      const nodes = await engineNodes(ctx.deps, input.engine).catch(() => []);
      return { ...renderPreview(input, nodes), warnings: await previewWarnings(ctx.deps, input, nodes) };
    }),
});

/** The warnings before a run: per node on a Swarm engine, none when the engine cannot be read now (creating the run says why). */
async function previewWarnings(deps: Deps, input: TRunCreate, nodes: readonly TEngineNode[] | null) {
  if (nodes === null) return runWarnings(input, await readHostBounds(deps.redis));
  return nodeWarnings(input, nodes);
}
