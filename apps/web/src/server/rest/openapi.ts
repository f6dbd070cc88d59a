import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { QUOTA_ENV } from "@scalelab/scenarios/experiments";
import { z } from "zod";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "../http";
import { appRouter } from "../routers/_app";
import { ZRestError } from "./errors";
import { FILE_TYPES } from "./file";
import { REST_BASE } from "./handler";
import { imageUploadOperation } from "./openapi-images";
import { routesOf } from "./routes";

type ResponseObject = { description?: string; headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> };
type Parameter = { in: string; name: string; required?: boolean; example?: unknown };
type Example = { summary: string; value: unknown };
type RequestBody = {
  required?: boolean;
  content?: Record<string, { schema?: { required?: string[] }; examples?: Record<string, Example> }>;
};
type Operation = { operationId?: string; parameters?: Parameter[]; requestBody?: RequestBody; responses?: Record<string, ResponseObject> };

/** Answers of handler.ts to any request with a body, before its procedure runs. */
const BODY_ERRORS: Record<string, string> = {
  "400": `The request body is not valid JSON, nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep, or its input is invalid`,
  "413": `The request body is larger than ${MAX_BODY_BYTES} bytes`,
  "415": "The request body is not application/json",
};

/**
 * The quotas' answers (errors.ts `quota`, `queue_full`; @scalelab/scenarios/experiments quotas.ts),
 * both `error: "quota_exceeded"` with the limit named. 422: the request is valid but the lab will
 * never take it as it is (an experiment estimated beyond SCALELAB_MAX_EXPERIMENT_HOURS, or work
 * larger than the whole queue may hold): change it. 429: it would take the queue beyond
 * SCALELAB_MAX_QUEUE_HOURS; the same request succeeds once the queue has drained, about
 * Retry-After seconds from now (or sooner, when queued runs are cancelled).
 */
const QUOTA_ERRORS: Record<string, ResponseObject> = {
  "422": {
    description: `The lab will never take this as it is: an experiment estimated beyond the lab's maximum (${QUOTA_ENV.experiment}), or more work than the whole queue may hold (${QUOTA_ENV.queue}); the message names the limit and the estimate, the issues the field to change`,
  },
  "429": {
    description: `The queue is full: this work would take it beyond the lab's maximum (${QUOTA_ENV.queue}); the message names the limit and what is queued. Send it again once the queue has drained`,
    headers: {
      "Retry-After": {
        description: "about when the queue will have room for it, in seconds",
        required: true,
        schema: { type: "integer", minimum: 1 },
      },
    },
  },
};

/** The 422s that are no quota's: `error: "unprocessable"`, the issue naming the field. */
const OTHER_422: Record<string, string> = {
  "runs-markBaseline": "The run has no name: a baseline is the baseline of a name (the issue names `name`)",
};

/** API tokens (server/auth): when the lab needs one. */
const BEARER_AUTH = {
  type: "http",
  scheme: "bearer",
  description:
    "An API token (slb_…), made at /tokens, with `scalelab token create <name>`, or on the lab's host with `pnpm --filter @scalelab/lab lab token create <name>`. " +
    "Required when the web listens on anything but loopback, when SCALELAB_ALLOWED_HOSTS names a host that is not loopback, for a request addressed (Host, X-Forwarded-Host) to a host that is not loopback, and with SCALELAB_AUTH=required; " +
    "optional otherwise, but a token sent is checked there too (a revoked or unknown one is a 401).",
} as const;

const UNAUTHORIZED: ResponseObject = {
  description: "No API token where the lab needs one, or a token that is malformed, unknown or revoked (error: unauthorized)",
  headers: { "WWW-Authenticate": { description: 'Bearer realm="scalelab"', required: true, schema: { type: "string" } } },
};

/** What any operation with parameters answers to one the input schema refuses (e.g. an id over 64 characters). */
const INVALID_INPUT = "Invalid input: the issues name each field at fault";

/** A file's body: text for CSV and HTML; the JSON export is a JSON object. */
const FILE_CONTENT = Object.fromEntries(
  FILE_TYPES.map((type) => [
    type,
    { schema: type.startsWith("application/json") ? { type: "object", description: "the exported data" } : { type: "string" } },
  ]),
);

/** A run as README.md's first example creates it (experiment 3 of the write-ups, one side). */
const RUN_EXAMPLE = {
  name: "3 replicas",
  topology: { balancer: { kind: "nginx", algorithm: "round_robin" }, service: { replicas: 3, cpus: 0.2, memoryMb: 256 } },
  workload: { endpoint: "cpu", vus: 3, durationSeconds: 20 },
};

/** README.md's experiment: a sweep of replicas at 0.2 CPU each. */
const EXPERIMENT_EXAMPLE = {
  name: "replicas at 0.2 CPU",
  base: {
    topology: { service: { replicas: 1, cpus: 0.2 } },
    workload: { endpoint: "cpu", loadgen: "wrk", connections: 32, durationSeconds: 10 },
  },
  sweep: [{ field: "topology.service.replicas", values: [1, 2, 3, 4, 6, 8] }],
  repetitions: 3,
};

/** More runs the API reference shows beside RUN_EXAMPLE: each load generator and model, a user's image with its store. */
const RUN_EXAMPLES: Record<string, Example> = {
  haproxyWrk: {
    summary: "HAProxy (least connections) in front of 2 replicas, loaded by wrk",
    value: {
      name: "haproxy leastconn, wrk",
      topology: { balancer: { kind: "haproxy", algorithm: "leastconn" }, service: { replicas: 2, cpus: 0.5 } },
      workload: { endpoint: "hostname", loadgen: "wrk", connections: 32, durationSeconds: 15 },
    },
  },
  openModel: {
    summary: "An open model: 200 requests a second whatever the answers, k6",
    value: {
      name: "200 req/s",
      topology: { service: { replicas: 2, cpus: 0.25 } },
      workload: { endpoint: "cpu", arrivalRate: 200, durationSeconds: 20 },
    },
  },
  withThresholds: {
    summary: "Thresholds checked when the run ends: p95 under 250 ms, fewer than 1 % errors (summary.thresholds says pass or fail)",
    value: {
      ...RUN_EXAMPLE,
      name: "3 replicas, with thresholds",
      thresholds: [
        { metric: "p95", op: "<", value: 250 },
        { metric: "errorRate", op: "<", value: 0.01 },
      ],
    },
  },
  yourImage: {
    summary: "Your own image (built on the lab's engine) on Postgres with its schema, one request",
    value: {
      name: "orders on postgres",
      topology: {
        service: { kind: "image", image: "orders:1", port: 8080, replicas: 2, cpus: 0.25, healthPath: "/health" },
        storage: { kind: "postgres", init: "CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL);" },
      },
      workload: { vus: 8, durationSeconds: 20, request: { method: "GET", path: "/orders" } },
    },
  },
};

/** Beside EXPERIMENT_EXAMPLE: named variants rather than a sweep. */
const EXPERIMENT_EXAMPLES: Record<string, Example> = {
  variants: {
    summary: "Two named variants of one base: nginx against HAProxy, 3 runs each",
    value: {
      name: "nginx or haproxy",
      base: { topology: { service: { replicas: 2, cpus: 0.25 } }, workload: { endpoint: "hostname", vus: 8, durationSeconds: 10 } },
      variants: [
        { name: "nginx", patch: { topology: { balancer: { kind: "nginx" } } } },
        { name: "haproxy", patch: { topology: { balancer: { kind: "haproxy" } } } },
      ],
      repetitions: 3,
    },
  },
  thresholds: {
    summary: "Thresholds: every run under 1 % errors, and HAProxy's req/s no more than 5 % below nginx's at p < 0.05",
    value: {
      name: "haproxy no slower than nginx",
      base: { topology: { service: { replicas: 2, cpus: 0.25 } }, workload: { endpoint: "hostname", vus: 8, durationSeconds: 10 } },
      variants: [
        { name: "nginx", patch: { topology: { balancer: { kind: "nginx" } } } },
        { name: "haproxy", patch: { topology: { balancer: { kind: "haproxy" } } } },
      ],
      repetitions: 3,
      thresholds: [
        { metric: "errorRate", op: "<", value: 0.01 },
        { metric: "rps", compare: "baseline", worseBy: 5, p: 0.05 },
      ],
    },
  },
};

/**
 * A valid request of each operation that takes a body or a path name: shown in the document (and
 * in the API reference, /reference), and what the contract fuzz's examples phase sends first, so
 * that it reaches the 201s and has real ids to follow (handler.test.ts checks that each is
 * accepted). `body` is the first of the body's examples, `more` the others; `query` a query
 * parameter's example.
 */
export const OPERATION_EXAMPLES: Record<
  string,
  { summary?: string; body?: unknown; more?: Record<string, Example>; path?: Record<string, string>; query?: Record<string, unknown> }
> = {
  "runs-create": { summary: "3 replicas at 0.2 CPU behind nginx, 3 k6 VUs", body: RUN_EXAMPLE, more: RUN_EXAMPLES },
  "preview-render": { summary: "3 replicas at 0.2 CPU behind nginx, 3 k6 VUs", body: RUN_EXAMPLE, more: RUN_EXAMPLES },
  "experiments-create": { summary: "A sweep of replicas, 3 runs each", body: EXPERIMENT_EXAMPLE, more: EXPERIMENT_EXAMPLES },
  "experiments-preview": { summary: "A sweep of replicas, 3 runs each", body: EXPERIMENT_EXAMPLE, more: EXPERIMENT_EXAMPLES },
  "presets-run": {
    summary: "The preset once, with 5 s loads",
    body: { repetitions: 1, patch: { workload: { durationSeconds: 5 } } },
    more: { asItIs: { summary: "The preset as it is", value: {} } },
    path: { name: "cpu-limit-replicas" },
  },
  "history-get": { query: { name: "3 replicas", kind: "run", limit: 50 } },
  "tokens-create": { summary: "A token for the CI job", body: { name: "ci" } },
  // Two runs' ids (from GET /runs); the baseline is the first.
  "runs-compare": { query: { ids: ["3f2b9c4e-8d1a-4c7e-9b6f-2a5d8e1c0b71", "7a6e1d20-5c3b-4f8e-a9d4-1b2c3d4e5f60"] } },
};

/** The fields of a procedure's input object, whatever wraps it (`.prefault({})`, `.default()`). */
function inputShape(input: unknown): Record<string, z.ZodType> {
  let schema = input;
  while (schema instanceof z.ZodType && !(schema instanceof z.ZodObject) && "innerType" in schema._zod.def) {
    schema = schema._zod.def.innerType;
  }
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
}

let cached: OpenAPIObject | undefined;

/**
 * The OpenAPI document of /api/v1, generated from the tRPC procedures, then corrected where the
 * REST layer differs from trpc-to-openapi's defaults, so that the document and the behaviour
 * agree (the test suite's schemathesis step checks it):
 *
 * - success statuses other than 200, the 202 of a delete the worker finishes, and files (the JSON export is an object, CSV and HTML text);
 * - the error body (handler.ts answers every error in the ZRestError shape);
 * - the 400, 413 and 415 answers to a body that is not JSON, too deep, too large or not JSON at
 *   all, and the 400 of any operation whose parameters the input schema can refuse;
 * - a query parameter is required when its schema refuses its absence (`/compare`'s `ids`,
 *   whose preprocessing hides that from the generator);
 * - a body is required only when it has required fields: handler.ts reads no body as `{}`, so
 *   `POST /presets/{name}/run` without one runs the preset as it is;
 * - a valid example of each body (OPERATION_EXAMPLES);
 * - `POST /images`, which is no procedure (openapi-images.ts).
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
  const accepted = new Set<string>();
  const shapes = new Map<string, Record<string, z.ZodType>>();
  for (const route of routesOf(appRouter)) {
    const id = route.procedure.replace(/\./g, "-");
    if (route.successStatus !== 200) successStatus.set(id, route.successStatus);
    if (route.file) files.add(id);
    if (route.accepted) accepted.add(id);
    shapes.set(id, inputShape(route.input));
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
      if (op.operationId && accepted.has(op.operationId) && responses["200"]) {
        responses["202"] = {
          ...responses["200"],
          description: "Accepted: cancelled, and deleted by the worker once its containers are removed (deleted: false)",
        };
      }
      if (op.operationId && files.has(op.operationId) && responses["200"]) {
        // The file itself, not the procedure's JSON wrapper (rest/file.ts).
        responses["200"] = { description: "The file, as an attachment", content: FILE_CONTENT };
      }
      const shape = (op.operationId && shapes.get(op.operationId)) || {};
      const example = op.operationId ? OPERATION_EXAMPLES[op.operationId] : undefined;
      for (const param of op.parameters ?? []) {
        if (param.in === "path" && example?.path?.[param.name]) param.example = example.path[param.name];
        if (param.in === "query" && example?.query?.[param.name] !== undefined) param.example = example.query[param.name];
        const schema = shape[param.name];
        if (param.in !== "query" || !schema) continue;
        if (schema.safeParse(undefined).success) delete param.required;
        else param.required = true;
      }
      if (op.requestBody) {
        const bodySchema = Object.values(op.requestBody.content ?? {})[0]?.schema;
        op.requestBody.required = (bodySchema?.required?.length ?? 0) > 0;
        const json = op.requestBody.content?.["application/json"];
        if (json && example?.body) {
          json.examples = { example: { summary: example.summary ?? "An example", value: example.body }, ...example.more };
        }
        for (const [code, description] of Object.entries(BODY_ERRORS)) {
          responses[code] ??= { description, content: { "application/json": {} } };
        }
      }
      if ((op.parameters?.length ?? 0) > 0) responses["400"] ??= { description: INVALID_INPUT, content: { "application/json": {} } };
      for (const [code, response] of Object.entries(OTHER_422[op.operationId ?? ""] ? {} : QUOTA_ERRORS)) {
        if (responses[code]) responses[code] = { ...response, content: { "application/json": {} } };
      }
      const other = OTHER_422[op.operationId ?? ""];
      if (other && responses["422"]) responses["422"] = { description: other, content: { "application/json": {} } };
      for (const [code, response] of Object.entries(responses)) {
        if (Number(code) >= 400 && response.content?.["application/json"]) {
          response.content["application/json"].schema = errorSchema;
        }
      }
    }
  }
  const images = (doc.paths ??= {})["/images"] ?? {};
  doc.paths["/images"] = { ...images, post: imageUploadOperation(errorSchema) };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      (op.responses ??= {})["401"] = { ...UNAUTHORIZED, content: { "application/json": { schema: errorSchema } } };
    }
  }
  doc.components = { ...doc.components, securitySchemes: { bearerAuth: BEARER_AUTH } };
  // Either a token or none: optional on a loopback lab, required otherwise (the scheme's description says when).
  doc.security = [{ bearerAuth: [] }, {}];
  cached = doc;
  return doc;
}
