import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import { appRouter } from "../routers/_app";
import { ZRestError } from "./errors";
import { REST_BASE } from "./handler";
import { procedureMeta, procedurePaths } from "./meta";

type Operation = { operationId?: string; responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

let cached: OpenAPIObject | undefined;

/**
 * The OpenAPI document of /api/v1, generated from the tRPC procedures, then corrected where the
 * REST layer differs from trpc-to-openapi's defaults: success statuses other than 200, and the
 * error body (handler.ts rewrites every error into ZRestError).
 */
export function openApiDocument(): OpenAPIObject {
  if (cached) return cached;
  const doc = generateOpenApiDocument(appRouter, {
    title: "Scalelab API",
    version: "1.0.0",
    baseUrl: REST_BASE,
    description: "Create runs of scaling experiments, follow them and compare them.",
    securitySchemes: {},
  });

  const successStatus = new Map<string, number>();
  for (const path of procedurePaths()) {
    const status = procedureMeta(path)?.successStatus;
    if (status) successStatus.set(path.replace(/\./g, "-"), status);
  }
  const { $schema: _, ...errorSchema } = z.toJSONSchema(ZRestError);

  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      const responses = op.responses;
      if (!responses) continue;
      const status = op.operationId ? successStatus.get(op.operationId) : undefined;
      if (status && responses["200"]) {
        responses[String(status)] = responses["200"];
        delete responses["200"];
      }
      for (const [code, response] of Object.entries(responses)) {
        if (Number(code) >= 400 && response.content?.["application/json"]) {
          response.content["application/json"].schema = errorSchema;
        }
      }
    }
  }
  cached = doc;
  return doc;
}
