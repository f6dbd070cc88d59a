import {
  DOCKERFILE,
  formatBytes,
  MAX_CONTEXT_BYTES,
  MAX_REFERENCE_LENGTH,
  REFERENCE_PATTERN,
  REFERENCE_RULE,
  ZImageBuildEvent,
} from "@scalelab/scenarios/images";
import type { OpenAPIObject } from "trpc-to-openapi";
import { z } from "zod";
import { CONTEXT_TYPES, NDJSON, RETRY_AFTER_SECONDS } from "../images/upload";

type Operation = NonNullable<NonNullable<OpenAPIObject["paths"]>[string]["post"]>;

const schemaOf = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema);
  return rest;
};

const ZBuiltImage = z.object({
  reference: z.string().describe("name:tag"),
  id: z.string().describe("sha256:…"),
  size: z.number().int().nonnegative().describe("bytes"),
  created: z.iso.datetime(),
});

/**
 * `POST /images` as the OpenAPI document describes it, written by hand: it is handled by
 * server/images/upload.ts, not by a procedure, since its body is a raw build context.
 */
export function imageUploadOperation(errorSchema: Record<string, unknown>): Operation {
  const errorWithLines = {
    ...errorSchema,
    properties: {
      ...(errorSchema.properties as Record<string, unknown>),
      lastLines: { type: "array", items: { type: "string" }, description: "build_failed: the build's last 20 output lines" },
    },
  };
  const error = (description: string, schema: Record<string, unknown> = errorSchema) => ({
    description,
    content: { "application/json": { schema } },
  });
  return {
    operationId: "images-upload",
    summary: `Build an image from an uploaded build context (a tar or tar.gz with a ${DOCKERFILE}, at most ${formatBytes(MAX_CONTEXT_BYTES)})`,
    description:
      "The image is built on the lab's Docker engine, one build at a time, and labelled scalelab.user-image=true. " +
      `With Accept: ${NDJSON} the answer is a 200 stream of JSON lines (each build step and output line) ending with ` +
      'a "result" or an "error" line; otherwise 201 with the image, or 422 with the build\'s last output lines. ' +
      "A client that disconnects cancels the build.\n\n" +
      "Example: build the image `orders:1` from a directory with its Dockerfile, following the build:\n\n" +
      "```sh\n" +
      "tar -C examples/flask-orders -czf - . |\n" +
      `  curl -sS --data-binary @- -H 'content-type: application/gzip' -H 'accept: ${NDJSON}' \\\n` +
      "    'http://localhost:3000/api/v1/images?tag=orders:1'\n" +
      "```",
    tags: ["images"],
    parameters: [
      {
        in: "query" as const,
        name: "tag",
        required: true,
        description: `The image's reference, ${REFERENCE_RULE}; not in the lab's own namespace scalelab/`,
        schema: { type: "string" as const, minLength: 1, maxLength: MAX_REFERENCE_LENGTH, pattern: REFERENCE_PATTERN },
        example: "myapp:1",
      },
    ],
    // One media type documented, so that the contract fuzz does not test the same body three times.
    requestBody: {
      required: true,
      description: `The build context: a tar archive of a directory, gzip-compressed or not (recognised by its bytes); sent as any of ${CONTEXT_TYPES.join(", ")}`,
      content: { "application/octet-stream": { schema: { type: "string" as const, format: "binary", maxLength: MAX_CONTEXT_BYTES } } },
    },
    responses: {
      "200": {
        description: `With Accept: ${NDJSON}: the build's progress, one JSON object a line`,
        content: { [NDJSON]: { schema: schemaOf(ZImageBuildEvent) } },
      },
      "201": { description: "The image was built", content: { "application/json": { schema: schemaOf(ZBuiltImage) } } },
      "400": error("The tag is missing or invalid, in the lab's namespace, or names an image the lab uses (issues name the field tag)"),
      "413": error(`The build context is larger than ${formatBytes(MAX_CONTEXT_BYTES)}; the upload is stopped and nothing is built`),
      "415": error(`The body is not sent as ${CONTEXT_TYPES.join(", ")}`),
      "422": error(
        `The body is no tar archive, has no ${DOCKERFILE} at its root (invalid_context), or the build failed (build_failed)`,
        errorWithLines,
      ),
      "429": {
        ...error("Another image is being built; the lab builds one at a time"),
        headers: { "Retry-After": { description: `seconds (${RETRY_AFTER_SECONDS})`, schema: { type: "integer" as const } } },
      },
      "503": error("The Docker engine does not answer"),
    },
  };
}
