import { topologyDiagram, type Diagram } from "@scalelab/scenarios/diagram";
import { buildPlan, type LabImage, type RunPlan } from "@scalelab/scenarios/plan";
import type { TRunCreate } from "@scalelab/scenarios/schemas";

/** The run id of a plan that is only shown, never started. */
export const PREVIEW_RUN_ID = "preview-run";

/** Stand-ins for the image tags the worker resolves when it builds the images; one per image a run can use. */
const PLACEHOLDER_IMAGES: Record<LabImage, string> = {
  testbed: "scalelab/testbed",
  nginx: "scalelab/nginx",
  haproxy: "scalelab/haproxy",
  k6: "scalelab/k6",
  kafka: "scalelab/kafka",
  cassandra: "scalelab/cassandra",
  postgres: "scalelab/postgres",
};

/** The plan the worker would build for this run, with placeholder images. With a real run id the container names match the run's. */
export const shownPlan = (run: TRunCreate, runId: string = PREVIEW_RUN_ID): RunPlan => buildPlan({ runId, run, images: PLACEHOLDER_IMAGES });

export const runDiagram = (run: TRunCreate, runId?: string): Diagram => topologyDiagram(shownPlan(run, runId));
