import { NewRunForm } from "~/components/new-run-form";

/**
 * `/runs/new?kind=image` opens the form on the user's own image (the presets page links there);
 * `/runs/new?from=<run id>` opens it filled with that run's definition ("Copy and change");
 * `/runs/new?first=1` on the home page's small first run.
 */
export default async function NewRunPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { kind, from, first } = await searchParams;
  return (
    <NewRunForm
      kind={typeof kind === "string" ? kind : undefined}
      from={typeof from === "string" ? from : undefined}
      first={first === "1"}
    />
  );
}
