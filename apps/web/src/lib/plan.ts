import { topologyDiagram, type Diagram, type DiagramPlacement } from "@scalelab/scenarios/plan";
import { buildPlan, LAB_IMAGES, type LabImage, type RunPlan } from "@scalelab/scenarios/plan";
import type { THostFacts, TRunCreate } from "@scalelab/scenarios/contract";

/** The run id of a plan that is only shown, never started. */
export const PREVIEW_RUN_ID = "preview-run";

/** Stand-ins for the image tags the worker resolves when it builds the images; one per image a run can use. */
const PLACEHOLDER_IMAGES = Object.fromEntries(LAB_IMAGES.map((name) => [name, `scalelab/${name}`])) as Record<LabImage, string>;

/** The plan the worker would build for this run, with placeholder images. With a real run id the container names match the run's. */
export const shownPlan = (run: TRunCreate, runId: string = PREVIEW_RUN_ID): RunPlan =>
  buildPlan({ runId, run, images: PLACEHOLDER_IMAGES });

/** Where the run's containers ran, from its host facts; undefined when the worker recorded no nodes (a run on local). */
export const placementOf = (host: THostFacts | null | undefined): DiagramPlacement | undefined =>
  host?.nodes && host.containerNodes ? { nodes: host.nodes, containerNodes: host.containerNodes } : undefined;

/** The run's diagram; grouped by node when its host facts say it ran on several. */
export const runDiagram = (run: TRunCreate, runId?: string, host?: THostFacts | null): Diagram =>
  topologyDiagram(shownPlan(run, runId), placementOf(host));
