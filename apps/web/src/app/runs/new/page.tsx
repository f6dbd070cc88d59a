import { NewRunForm } from "~/components/new-run-form";

/** `/runs/new?kind=image` opens the form on the user's own image (the presets page links there). */
export default async function NewRunPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { kind } = await searchParams;
  return <NewRunForm kind={typeof kind === "string" ? kind : undefined} />;
}
