import { RunPage } from "~/components/run-page";
import { AppError } from "~/server/errors";
import { deps } from "~/server/runtime";
import { runSnapshot, type TRunSnapshot } from "~/server/runs/live";
import { ZRunId } from "~/server/runs/types";
import { unstorableText } from "~/server/storable";

/**
 * The run as the live view's first event has it, read while the page is rendered so that the page
 * arrives with its figures instead of waiting for the stream; null when there is nothing to read
 * (an unknown id: the page says so, as the client does).
 */
async function initialSnapshot(id: string): Promise<TRunSnapshot | null> {
  if (!ZRunId.safeParse({ id }).success || unstorableText(id).length > 0) return null;
  try {
    return await runSnapshot(deps, id, { containersLater: true });
  } catch (err) {
    if (err instanceof AppError && err.kind === "not_found") return null;
    // The client reads the run again and shows why it could not (as it did before this read).
    console.error(`run page ${id}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <RunPage id={id} initial={await initialSnapshot(id)} />;
}
