/**
 * The runs page's grouped list: stand-alone runs and experiments (one row each, their runs under
 * them) in one list, newest first (or oldest first), from two keyset-paged streams (GET
 * /runs?experiment=none and GET /experiments, in the same order). An item of one stream can be
 * placed only when the other stream has nothing unloaded that comes before it: a stream with more
 * pages holds back every item of the other one that comes after its last loaded item, until its
 * next page comes.
 */
export type Keyed = { id: string; createdAt: string };
export type Stream<T extends Keyed> = { items: readonly T[]; hasMore: boolean };
export type Row<R, E> = { kind: "run"; item: R } | { kind: "experiment"; item: E };

/** Newest first: createdAt, then id, both descending (the API's order). */
export function newerFirst(a: Keyed, b: Keyed): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** Oldest first: createdAt, then id, both ascending (the API's `order=oldest`). */
export function olderFirst(a: Keyed, b: Keyed): number {
  return newerFirst(b, a);
}

export function mergeTimeline<R extends Keyed, E extends Keyed>(
  runs: Stream<R>,
  experiments: Stream<E>,
  order: "newest" | "oldest" = "newest",
): { rows: Row<R, E>[]; held: number; next: "runs" | "experiments" | null } {
  const before = order === "oldest" ? olderFirst : newerFirst;
  const all: Row<R, E>[] = [
    ...runs.items.map((item) => ({ kind: "run" as const, item })),
    ...experiments.items.map((item) => ({ kind: "experiment" as const, item })),
  ].sort((a, b) => before(a.item, b.item));
  // The first (in order) of the streams' last loaded items, among streams with more: nothing after it is certain yet.
  const limits = [
    { name: "runs" as const, stream: runs as Stream<Keyed> },
    { name: "experiments" as const, stream: experiments as Stream<Keyed> },
  ].flatMap(({ name, stream }) => {
    const last = stream.items.at(-1);
    return stream.hasMore ? [{ name, last }] : [];
  });
  if (limits.length === 0) return { rows: all, held: 0, next: null };
  // A stream with more but nothing loaded yet holds back everything.
  const empty = limits.find((l) => l.last === undefined);
  if (empty) return { rows: [], held: all.length, next: empty.name };
  const bound = limits.map((l) => ({ name: l.name, last: l.last! })).sort((a, b) => before(a.last, b.last))[0]!;
  const rows = all.filter((r) => before(r.item, bound.last) <= 0);
  return { rows, held: all.length - rows.length, next: bound.name };
}
