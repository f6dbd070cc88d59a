import { buildPlan, K6_SCRIPT_PATH, NGINX_CONF_PATH, type PlannedContainer } from "@scalelab/scenarios/plan";
import { ZRunCreate, type TRunCreate } from "@scalelab/scenarios/schemas";
import { z } from "zod";
import { procedure, router } from "../trpc";

export const ZPreview = z.object({ nginxConf: z.string(), k6Script: z.string() });

const fileOf = (c: PlannedContainer, path: string) => c.files.find((f) => f.path === path)?.content ?? "";

/** The files the worker will write into the balancer and the load generator, from the same plan. */
export function renderPreview(run: TRunCreate): z.infer<typeof ZPreview> {
  const plan = buildPlan({
    runId: "preview-run",
    run,
    images: { testbed: "scalelab/testbed", nginx: "scalelab/nginx", k6: "scalelab/k6" },
  });
  return { nginxConf: fileOf(plan.lb, NGINX_CONF_PATH), k6Script: fileOf(plan.loadgen, K6_SCRIPT_PATH) };
}

export const previewRouter = router({
  render: procedure
    .meta({
      openapi: { method: "POST", path: "/preview", tags: ["runs"], protect: false, summary: "The nginx.conf and k6 script a run would use", errorResponses: [400] },
    })
    .input(ZRunCreate)
    .output(ZPreview)
    .query(({ input }) => renderPreview(input)),
});
