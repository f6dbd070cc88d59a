import { LOADGENS, RUN_STATUSES } from "@scalelab/scenarios/contract";
import { z } from "zod";

/**
 * Keyset paging of runs and experiments, newest first (ORDER BY created_at DESC, id DESC) or
 * oldest first (both ascending): a cursor is the (created_at, id) of the last item of a page and
 * the order it was read in, base64url-encoded JSON; the next page starts strictly after it, so
 * inserts and deletes between pages neither repeat nor skip an item. A cursor is refused with the
 * other order (it would start a page somewhere in the middle, silently).
 */
export const ORDERS = ["newest", "oldest"] as const;
export type TOrder = (typeof ORDERS)[number];
export type Cursor = { createdAt: Date; id: string; order: TOrder };

/** A newest-first cursor is `[createdAt, id]` (as before there was an order); an oldest-first one adds "oldest". */
export function encodeCursor(c: Cursor): string {
  const value = c.order === "oldest" ? [c.createdAt.toISOString(), c.id, "oldest"] : [c.createdAt.toISOString(), c.id];
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

/** The cursor a page's `nextCursor` gave, or null when the string is not one. */
export function decodeCursor(raw: string): Cursor | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return null;
  const [at, id, order] = value as unknown[];
  if (typeof at !== "string" || typeof id !== "string" || id.length < 1 || id.length > 64) return null;
  if (value.length === 3 && order !== "oldest") return null;
  const createdAt = new Date(at);
  // Exactly as encodeCursor writes it: no other format, no date that rolls over (Feb 31).
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return null;
  return { createdAt, id, order: value.length === 3 ? "oldest" : "newest" };
}

export const ZOrder = z
  .enum(ORDERS, { error: `order must be one of: ${ORDERS.join(", ")}` })
  .default("newest")
  .meta({ description: "newest first (the default) or oldest first, by created_at then id" });

export const LIMIT = { min: 1, max: 500, default: 100 } as const;
const limitRange = `limit must be a whole number between ${LIMIT.min} and ${LIMIT.max}`;

// A JSON number, or decimal digits as a query string carries them (`?limit=5`);
// nothing else is coerced: not "0x10", "1e2", true or [5].
export const ZLimit = z
  .union([z.number(), z.string().regex(/^\d{1,9}$/, { error: limitRange })], { error: "limit must be a number" })
  .pipe(
    z.coerce
      .number<string | number>()
      .int({ error: limitRange })
      .min(LIMIT.min, { error: `limit must be between ${LIMIT.min} and ${LIMIT.max}` })
      .max(LIMIT.max, { error: `limit must be between ${LIMIT.min} and ${LIMIT.max}` }),
  )
  .default(LIMIT.default)
  .meta({
    // Documented as what it is in a query string: an integer.
    override: ({ jsonSchema }) => {
      delete jsonSchema.anyOf;
      Object.assign(jsonSchema, { type: "integer", minimum: LIMIT.min, maximum: LIMIT.max, default: LIMIT.default });
    },
  });

export const ZCursor = z
  .string({ error: "cursor must be a string: the nextCursor of the previous page" })
  .transform((raw, ctx) => {
    const cursor = decodeCursor(raw);
    if (!cursor) {
      ctx.addIssue({ code: "custom", message: "cursor is not one this API gave: pass a page's nextCursor unchanged" });
      return z.NEVER;
    }
    return cursor;
  })
  .optional()
  .meta({
    override: ({ jsonSchema }) => Object.assign(jsonSchema, { type: "string", description: "the nextCursor of the previous page" }),
  });

/** One string or several (`?status=failed&status=cancelled`, or `failed,cancelled`), as a list. */
const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .preprocess(
      (v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()) : v),
      z
        .array(item)
        .min(1, { error: `${what} must name at least one value` })
        .max(20, { error: `${what} takes at most 20 values` }),
    )
    .optional();

const statusError = `status must be one or several of: ${RUN_STATUSES.join(", ")}`;
export const ZStatusFilter = listOf(z.enum(RUN_STATUSES, { error: statusError }), "status").meta({
  override: ({ jsonSchema }) => {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, {
      type: "array",
      items: { type: "string", enum: [...RUN_STATUSES] },
      maxItems: 20,
      description: "one or several (repeat the parameter, or separate by commas)",
    });
  },
});

const Q_MAX = 200;
/** A name search: case-insensitive, anywhere in the name; also an id's start. Blank is no search. */
export const ZQuery = z
  .string({ error: "q must be a string" })
  .max(Q_MAX, { error: `q must be at most ${Q_MAX} characters` })
  .transform((s) => s.trim() || undefined)
  .optional();

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A date (`2026-11-26`, a whole UTC day) or an ISO 8601 instant with its offset. `from` is the
 * start of that day or instant, `to` the end of that day or the instant itself.
 */
export function parseBound(raw: string, end: boolean): Date | null {
  if (DATE.test(raw)) {
    const day = new Date(`${raw}T00:00:00.000Z`);
    if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== raw) return null;
    return end ? new Date(day.getTime() + 86_400_000 - 1) : day;
  }
  if (!DATE_TIME.test(raw)) return null;
  const at = new Date(raw);
  return Number.isNaN(at.getTime()) ? null : at;
}

const bound = (name: "from" | "to") =>
  z
    .string({ error: `${name} must be a date (2026-11-26) or an ISO 8601 time (2026-11-26T09:30:00Z)` })
    .transform((raw, ctx) => {
      const at = parseBound(raw, name === "to");
      if (!at) {
        ctx.addIssue({ code: "custom", message: `${name} must be a date (2026-11-26) or an ISO 8601 time (2026-11-26T09:30:00Z)` });
        return z.NEVER;
      }
      return at;
    })
    .optional()
    .meta({
      override: ({ jsonSchema }) =>
        Object.assign(jsonSchema, {
          type: "string",
          description: `created_at ${name === "from" ? "at or after" : "at or before"}: a date (a whole UTC day) or an ISO 8601 time`,
        }),
    });

/** `none`: stand-alone runs only; otherwise an experiment's id. */
export const ZExperimentFilter = z
  .string({ error: "experiment must be an experiment's id or none" })
  .min(1, { error: "experiment must be an experiment's id or none" })
  .max(64, { error: "experiment must be at most 64 characters" })
  .optional();

export const ZLoadgenFilter = z.enum(LOADGENS, { error: `loadgen must be one of: ${LOADGENS.join(", ")}` }).optional();

const withRange = <T extends { from?: Date | undefined; to?: Date | undefined; cursor?: Cursor | undefined; order: TOrder }>(
  v: T,
  ctx: z.RefinementCtx,
) => {
  if (v.from && v.to && v.from > v.to) ctx.addIssue({ code: "custom", path: ["to"], message: "to must not be before from" });
  if (v.cursor && v.cursor.order !== v.order) {
    ctx.addIssue({
      code: "custom",
      path: ["cursor"],
      message: `cursor belongs to order=${v.cursor.order}, not order=${v.order}: pass the order the cursor's page was read with, or start without a cursor`,
    });
  }
};

export const ZRunListInput = z
  .object({
    cursor: ZCursor,
    limit: ZLimit,
    order: ZOrder,
    status: ZStatusFilter,
    q: ZQuery,
    experiment: ZExperimentFilter,
    loadgen: ZLoadgenFilter,
    from: bound("from"),
    to: bound("to"),
  })
  .superRefine(withRange)
  .prefault({});
export type TRunListInput = z.output<typeof ZRunListInput>;

export const ZExperimentListInput = z
  .object({ cursor: ZCursor, limit: ZLimit, order: ZOrder, q: ZQuery, from: bound("from"), to: bound("to") })
  .superRefine(withRange)
  .prefault({});
export type TExperimentListInput = z.output<typeof ZExperimentListInput>;

/** What a page of n+1 rows read in `order` gives: the first n and, when there was one more, the cursor after the n-th. */
export function pageOf<T extends { createdAt: Date; id: string }>(
  rows: T[],
  limit: number,
  order: TOrder,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { rows, nextCursor: null };
  const page = rows.slice(0, limit);
  const last = page[page.length - 1]!;
  return { rows: page, nextCursor: encodeCursor({ createdAt: last.createdAt, id: last.id, order }) };
}

/** A LIKE pattern matching `text` literally anywhere (`%`, `_` and `\` escaped). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A LIKE pattern matching `text` literally at the start. */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
