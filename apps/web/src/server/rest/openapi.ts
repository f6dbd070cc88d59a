import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import { MAX_BODY_BYTES } from "../http";
import { appRouter } from "../routers/_app";
import { ZRestError } from "./errors";
import { FILE_TYPES } from "./file";
import { REST_BASE } from "./handler";
import { routesOf } from "./routes";

type ResponseObject = { description?: string; content?: Record<string, { schema?: unknown }> };
type Operation = { operationId?: string; requestBody?: unknown; responses?: Record<string, ResponseObject> };

/** Answers of handler.ts to any request with a body, before its procedure runs. */
const BODY_ERRORS: Record<string, string> = {
  "413": `The request body is larger than ${MAX_BODY_BYTES} bytes`,
  "415": "The request body is not application/json",
};

const FILE_CONTENT = Object.fromEntries(FILE_TYPES.map((type) => [type, { schema: { type: "string" } }]));

let cached: OpenAPIObject | undefined;

/**
 * The OpenAPI document of /api/v1, generated from the tRPC procedures, then corrected where the
 * REST layer differs from trpc-to-openapi's defaults: success statuses other than 200, the
 * error body (handler.ts answers every error in the ZRestError shape), and the 413 and 415
 * answers to a body that is too large or not JSON.
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
  const files = new Set<string>();
  for (const route of routesOf(appRouter)) {
    const id = route.procedure.replace(/\./g, "-");
    if (route.successStatus !== 200) successStatus.set(id, route.successStatus);
    if (route.file) files.add(id);
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
      if (op.operationId && files.has(op.operationId) && responses["200"]) {
        // The file itself, not the procedure's JSON wrapper (rest/file.ts).
        responses["200"] = { description: "The file, as an attachment", content: FILE_CONTENT };
      }
      if (op.requestBody) {
        for (const [code, description] of Object.entries(BODY_ERRORS)) {
          responses[code] ??= { description, content: { "application/json": {} } };
        }
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
