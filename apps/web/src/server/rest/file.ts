import { z } from "zod";

export const FILE_TYPES = ["text/csv; charset=utf-8", "application/json; charset=utf-8", "text/html; charset=utf-8"] as const;

/** What a procedure with `meta.file` returns: over REST the body is sent as a download; over tRPC it is this object. */
export const ZFile = z.object({
  contentType: z.enum(FILE_TYPES),
  /** Built from validated names only (scenarios export.ts fileName). */
  filename: z.string().regex(/^[A-Za-z0-9-]+\.(csv|json|html)$/),
  body: z.string(),
});
export type TFile = z.infer<typeof ZFile>;

export function fileResponse(file: TFile): Response {
  return new Response(file.body, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      // A report opens in the browser (and saves as one file); data files download.
      "content-disposition": `${file.contentType.startsWith("text/html") ? "inline" : "attachment"}; filename="${file.filename}"`,
      "x-content-type-options": "nosniff",
      // A report opened from the API must not run anything or load anything (it has neither).
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
    },
  });
}
