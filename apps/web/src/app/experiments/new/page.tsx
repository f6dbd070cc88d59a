import { NewExperiment } from "~/components/experiment-form";

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function NewExperimentPage({
  searchParams,
}: {
  searchParams: Promise<{ from?: string | string[]; preset?: string | string[] }>;
}) {
  const { from, preset } = await searchParams;
  return <NewExperiment from={first(from)} preset={first(preset)} />;
}
